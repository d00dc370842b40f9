/* The counts of a built-in workload's own tasks (its threads and child
 * processes): their run delay (time runnable but not running) and their
 * migrations, which the kernel forgets once a thread has exited or a
 * child has been reaped.  So the workload reads them itself, just before
 * it joins or reaps the task, after the clock read that ends its timed
 * interval, and adds them to the repetition's accumulator; the runner
 * adds those to what it reads of the repetition's own task
 * (measure/sysstat.h: sched.run-delay, sched.migrations).
 *
 * The accumulator lives in the page the repetition's child shares with
 * the runner.  The runner sets want (the machine readings are on: no
 * --no-sysstat) and root; the child points nf_wl_tasks at it before the
 * workload runs.  With nf_wl_tasks NULL (a test calling run_once, or
 * --no-sysstat) nothing is read. */
#ifndef NF_WORKLOAD_TASKS_H
#define NF_WORKLOAD_TASKS_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

struct nf_wl_tasks {
    int want;       /* set by the runner: read the tasks */
    char root[512]; /* where /proc lives; "" is / */
    int n;          /* tasks whose schedstat was read */
    int nmigr;      /* tasks whose sched was read */
    uint64_t run_delay_ns;
    uint64_t migrations;
};

/* This process's accumulator, or NULL: read nothing. */
extern struct nf_wl_tasks *nf_wl_tasks;

/* Whether the workload should read its tasks (nf_wl_tasks set, want). */
int nf_wl_tasks_on(void);

/* Add task tid of process pid (a child process: tid == pid, readable
 * while it is a zombie, before it is reaped) to nf_wl_tasks: its
 * /proc/PID/task/TID/schedstat and sched (/proc/PID/'s when tid == pid).
 * Nothing when off.  About 20-30 us of CPU time a task on a 2-CPU KVM guest,
 * which is why it comes after the clock. */
void nf_wl_tasks_add(pid_t pid, pid_t tid);

/* The counts of the task whose /proc directory is dir: 1 bit when its
 * schedstat gave *run_delay_ns, 2 when its sched gave *migrations. */
int nf_task_counts(const char *dir, uint64_t *run_delay_ns, uint64_t *migrations);

/* The calling thread's id (gettid). */
pid_t nf_wl_gettid(void);

/* Threads held once finished, so that their counts can still be read
 * after the clock: each calls nf_wl_hold_park as its last step, which
 * counts it done and, when on (nf_wl_tasks_on() at init), waits there
 * until nf_wl_hold_release.  The workload waits for them with
 * nf_wl_hold_wait instead of joining, reads the clock, reads each with
 * nf_wl_tasks_add (the ids they took with nf_wl_gettid), releases them
 * and joins them.  Off, park only counts, and the workload joins them as
 * it would without. */
struct nf_wl_hold {
    pthread_mutex_t lock;
    pthread_cond_t done_cond, gate;
    int on, released;
    long done;
};

void nf_wl_hold_init(struct nf_wl_hold *h);
void nf_wl_hold_park(struct nf_wl_hold *h);
void nf_wl_hold_wait(struct nf_wl_hold *h, long n); /* until n have parked */
void nf_wl_hold_release(struct nf_wl_hold *h);
void nf_wl_hold_destroy(struct nf_wl_hold *h);

#endif
