# Run a command with its stderr on a pseudo-terminal (stdout to a file), as
# a user at a terminal sees its progress line, and keep what the terminal
# got.  Used by t_progress.sh:
#   python3 pty_run.py OUT TTY [--until REGEX] -- CMD ARG...
# With --until, the command gets SIGINT once the terminal's text matches
# REGEX (and SIGKILL 10 s later).  Exits with the command's status
# (128 + signal when a signal ended it).
import os, re, signal, subprocess, sys, time

out, tty = sys.argv[1], sys.argv[2]
args = sys.argv[3:]
until = None
if args[0] == "--until":
    until = re.compile(args[1])
    args = args[2:]
assert args[0] == "--"
cmd = args[1:]
master, slave = os.openpty()
with open(out, "wb") as o:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=o, stderr=slave)
os.close(slave)
got = b""
interrupted = None
deadline = time.monotonic() + 300
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:  # EIO: every writer has gone
        break
    if not chunk:
        break
    got += chunk
    if until and interrupted is None and until.search(got.decode("utf-8", "replace")):
        p.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
    if (interrupted and time.monotonic() > interrupted + 10) or time.monotonic() > deadline:
        p.kill()
rc = p.wait()
with open(tty, "wb") as t:
    t.write(got)
sys.exit(128 - rc if rc < 0 else rc)
