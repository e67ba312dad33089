/* MF_SANITIZED: 1 in a build under AddressSanitizer or ThreadSanitizer (gcc
 * and clang), whose malloc replaces glibc's (sim/hugepages.c leaves the
 * heap alone there; test_hugepages expects it to). */
#ifndef MF_SANITIZED_H
#define MF_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MF_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MF_SANITIZED 1
#endif
#endif
#ifndef MF_SANITIZED
#define MF_SANITIZED 0
#endif

#endif
