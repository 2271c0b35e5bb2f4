/*
 * Counts heap allocations, for e4.py's allocation pass (E4, issue 16: "the
 * Python path reports its count"). Loaded with LD_PRELOAD into a Python run
 * with PYTHONMALLOC=malloc, so that every allocation of the process goes
 * through the C allocator: Python's objects (pymalloc would otherwise serve
 * them from its pools), numpy's buffers and the Rust extension's heap.
 *
 * It interposes the functions that hand out memory (malloc, calloc, realloc,
 * reallocarray, posix_memalign, aligned_alloc, memalign, valloc, pvalloc),
 * counts each call once per thread and once per process, and forwards it to
 * glibc's own implementation (__libc_*); free is not interposed (glibc frees
 * what its own functions allocated). realloc(NULL, n) and realloc(p, n) both
 * count: either may hand out a new block.
 *
 *   cc -shared -fPIC -O2 -o libhibari_alloccount.so alloccount.c
 *
 * Read from Python with ctypes: hibari_allocs_thread() (the calling thread's
 * count) and hibari_allocs_process() (every thread's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* initial-exec: a preloaded library's TLS is in the static block, so reading
 * it never calls __tls_get_addr (which may allocate, and would recurse). */
static __thread uint64_t thread_count __attribute__((tls_model("initial-exec")));
static uint64_t process_count;

static inline void count(void) {
    thread_count++;
    __atomic_fetch_add(&process_count, 1, __ATOMIC_RELAXED);
}

uint64_t hibari_allocs_thread(void) { return thread_count; }

uint64_t hibari_allocs_process(void) { return __atomic_load_n(&process_count, __ATOMIC_RELAXED); }

void *malloc(size_t n) {
    count();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size) {
    count();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n) {
    count();
    return __libc_realloc(p, n);
}

void *reallocarray(void *p, size_t n, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, bytes);
}

void *memalign(size_t align, size_t n) {
    count();
    return __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }

int posix_memalign(void **out, size_t align, size_t n) {
    if (align < sizeof(void *) || (align & (align - 1)) != 0) {
        return EINVAL;
    }
    void *p = memalign(align, n);
    if (p == NULL) {
        return ENOMEM;
    }
    *out = p;
    return 0;
}

void *valloc(size_t n) { return memalign((size_t)sysconf(_SC_PAGESIZE), n); }

void *pvalloc(size_t n) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return memalign(page, (n + page - 1) & ~(page - 1));
}
