// glibc's allocator settings (mallopt), which Swift's Glibc module leaves out.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
