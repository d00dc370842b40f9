/* Building ELF files for the unit tests (see elfbuild.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "elfbuild.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t add_str(char *buf, size_t *len, const char *s)
{
    size_t at = *len;
    strcpy(buf + at, s);
    *len += strlen(s) + 1;
    return at;
}

static Elf_Scn *new_scn(Elf *elf, const char *name, unsigned type, uint64_t addr, void *buf,
                        size_t size, Elf_Type dtype, char *shstr, size_t *shlen)
{
    Elf_Scn *scn = elf_newscn(elf);
    Elf_Data *d = elf_newdata(scn);
    d->d_buf = buf;
    d->d_size = size;
    d->d_type = dtype;
    d->d_align = 1;
    GElf_Shdr sh;
    gelf_getshdr(scn, &sh);
    sh.sh_name = add_str(shstr, shlen, name);
    sh.sh_type = type;
    sh.sh_addr = addr;
    sh.sh_size = size;
    if (type == SHT_PROGBITS || type == SHT_NOBITS)
        sh.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
    gelf_update_shdr(scn, &sh);
    return scn;
}

void write_elf(const char *path, const struct telf *t)
{
    assert_true(elf_version(EV_CURRENT) != EV_NONE);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
    assert_non_null(elf);
    GElf_Ehdr eh;
    assert_non_null(gelf_newehdr(elf, t->cls));
    gelf_getehdr(elf, &eh);
    eh.e_ident[EI_DATA] = (unsigned char)t->data;
    eh.e_machine = (GElf_Half)t->machine;
    eh.e_type = (GElf_Half)t->type;
    eh.e_version = EV_CURRENT;
    eh.e_flags = t->flags;
    gelf_update_ehdr(elf, &eh);

    char shstr[1024] = "", str[1024] = "";
    size_t shlen = 1, slen = 1;
    for (size_t i = 0; i < t->nsecs; i++)
        new_scn(elf, t->secs[i].name, t->secs[i].type, t->secs[i].addr,
                t->secs[i].type == SHT_NOBITS ? NULL : (void *)t->secs[i].bytes, t->secs[i].size,
                ELF_T_BYTE, shstr, &shlen);

    size_t symsz = t->cls == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    void *symbuf = calloc(t->nsyms + 1, symsz);
    Elf_Scn *symscn =
        new_scn(elf, t->dynsym ? ".dynsym" : ".symtab", t->dynsym ? SHT_DYNSYM : SHT_SYMTAB, 0,
                symbuf, (t->nsyms + 1) * symsz, ELF_T_SYM, shstr, &shlen);
    Elf_Data *symdata = elf_getdata(symscn, NULL);
    for (size_t i = 0; i < t->nsyms; i++) {
        GElf_Sym s = {0};
        s.st_name = (GElf_Word)add_str(str, &slen, t->syms[i].name);
        s.st_value = t->syms[i].value;
        s.st_size = t->syms[i].size;
        s.st_info = GELF_ST_INFO(t->syms[i].bind, t->syms[i].type);
        s.st_shndx = (GElf_Section)t->syms[i].sec;
        gelf_update_sym(symdata, (int)i + 1, &s);
    }
    Elf_Scn *strscn = new_scn(elf, t->dynsym ? ".dynstr" : ".strtab", SHT_STRTAB, 0, str, slen,
                              ELF_T_BYTE, shstr, &shlen);
    GElf_Shdr sh;
    gelf_getshdr(symscn, &sh);
    sh.sh_link = (GElf_Word)elf_ndxscn(strscn);
    sh.sh_entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    sh.sh_info = 1;
    gelf_update_shdr(symscn, &sh);
    size_t shstrndx = t->nsecs + 3;
    /* The name of .shstrtab goes in before the table is made, so that its
     * size covers it; new_scn adds a second copy past the end, unused. */
    size_t shname = add_str(shstr, &shlen, ".shstrtab");
    Elf_Scn *shscn =
        new_scn(elf, ".shstrtab", SHT_STRTAB, 0, shstr, shlen, ELF_T_BYTE, shstr, &shlen);
    gelf_getshdr(shscn, &sh);
    sh.sh_name = (GElf_Word)shname;
    gelf_update_shdr(shscn, &sh);
    assert_int_equal(elf_ndxscn(shscn), shstrndx);
    gelf_getehdr(elf, &eh);
    eh.e_shstrndx = (GElf_Half)shstrndx;
    gelf_update_ehdr(elf, &eh);
    assert_true(elf_update(elf, ELF_C_WRITE) > 0);
    elf_end(elf);
    close(fd);
    free(symbuf);
}
