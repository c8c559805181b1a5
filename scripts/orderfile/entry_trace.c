/*
 * Which functions of an executable a run enters, in the order it first enters them: the input of
 * scripts/orderfile.py (resident memory: docs/benchmarks.md).
 *
 * Loaded with LD_PRELOAD into the traced program. With ORDERFILE_TRACE_OUT and ORDERFILE_TEXT
 * ("<start>-<end>", hex offsets of the code from the executable's load address) set, its
 * constructor makes that code unexecutable. Executing it then faults, and the SIGSEGV handler
 * logs the faulting address (hex, offset from the load address, each address once) to
 * "$ORDERFILE_TRACE_OUT.<pid>" and makes that page executable again. Only the last WINDOW pages
 * entered stay executable, so that the next entry into an older one is seen too, until a page
 * has faulted BUDGET times: then it stays executable, so that a loop over more pages than the
 * window costs a bounded number of faults. A call that stays inside one page is not seen; the
 * function it enters is then placed apart from its caller, and a trace of that build sees it.
 *
 * Why not perf's page-fault events: the kernel maps up to 16 neighbouring pages on each fault of
 * a file mapping ("fault-around"), so most first touches are never seen, and a page holds
 * dozens of functions.
 *
 * Only what runs after the constructor is seen: the dynamic loader has relocated the program by
 * then, but none of its code has run. A program that installs its own SIGSEGV handler replaces
 * this one (for Swift, run with SWIFT_BACKTRACE=enable=no).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define WINDOW 4
#define BUDGET 64
#define MAX_PAGES (1UL << 16) /* 256 MiB of code */
#define SEEN_SLOTS (1UL << 21) /* open addressing; a server logs some 10^4 addresses */

static unsigned long code_start, code_end, load_base;
static int out = -1;
static atomic_flag busy = ATOMIC_FLAG_INIT;
static unsigned long seen[SEEN_SLOTS];
static unsigned long window[WINDOW];
static unsigned next_slot;
static unsigned short faults[MAX_PAGES];

/* True the first time `offset` is given. Offsets are never 0 (the ELF header is there). */
static int first_time(unsigned long offset) {
    unsigned long slot = (offset * 0x9E3779B97F4A7C15UL) >> 43;
    for (unsigned long probes = 0; probes < SEEN_SLOTS; probes++, slot = (slot + 1) & (SEEN_SLOTS - 1)) {
        if (seen[slot] == offset) return 0;
        if (seen[slot] == 0) {
            seen[slot] = offset;
            return 1;
        }
    }
    return 0; /* full: stop logging rather than loop */
}

static void log_offset(unsigned long offset) {
    char digits[24], line[24];
    int count = 0, length = 0;
    do {
        digits[count++] = "0123456789abcdef"[offset & 15];
        offset >>= 4;
    } while (offset);
    while (count) line[length++] = digits[--count];
    line[length++] = '\n';
    (void)!write(out, line, length);
}

/* Only async-signal-safe calls: mprotect, write, signal, raise. */
static void on_fault(int sig, siginfo_t *info, void *context) {
    (void)context;
    unsigned long address = (unsigned long)info->si_addr;
    if (address < code_start || address >= code_end) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    unsigned long page = address & ~(PAGE - 1);
    while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire)) {
    }
    if (first_time(address - load_base)) log_offset(address - load_base);
    mprotect((void *)page, PAGE, PROT_READ | PROT_EXEC);
    unsigned long index = (page - code_start) / PAGE;
    if (index < MAX_PAGES && ++faults[index] < BUDGET) {
        unsigned long evicted = window[next_slot];
        window[next_slot] = page;
        next_slot = (next_slot + 1) % WINDOW;
        int still_in_window = 0;
        for (int i = 0; i < WINDOW; i++) still_in_window |= window[i] == evicted;
        if (evicted && !still_in_window) mprotect((void *)evicted, PAGE, PROT_READ);
    }
    atomic_flag_clear_explicit(&busy, memory_order_release);
}

__attribute__((constructor)) static void start_tracing(void) {
    const char *prefix = getenv("ORDERFILE_TRACE_OUT"), *text = getenv("ORDERFILE_TEXT");
    unsigned long text_start, text_end;
    if (!prefix || !text || sscanf(text, "%lx-%lx", &text_start, &text_end) != 2) return;
    char executable[4096];
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    if (length <= 0) return;
    executable[length] = 0;

    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return;
    char line[8192];
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end, offset;
        char permissions[8], path[4096] = "";
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, permissions, &offset, path) == 5 && offset == 0 &&
            strcmp(path, executable) == 0)
            load_base = start;
    }
    fclose(maps);
    if (!load_base) return;
    code_start = (load_base + text_start) & ~(PAGE - 1);
    code_end = (load_base + text_end + PAGE - 1) & ~(PAGE - 1);

    char name[4200];
    snprintf(name, sizeof name, "%s.%d", prefix, (int)getpid());
    out = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &action, NULL);
    mprotect((void *)code_start, code_end - code_start, PROT_READ);
}
