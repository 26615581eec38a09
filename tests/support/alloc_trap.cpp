// Counts heap calls while armed. Two implementations:
// - plain builds: replaces the C allocation functions and every operator new/delete (glibc
//   exports __libc_malloc & co., so the replacements forward without recursion);
// - sanitizer builds (ASan, whose allocator must not be replaced): the sanitizer's malloc
//   hook, which its allocator calls for every malloc, calloc, realloc and operator new.
#include "support/alloc_trap.hpp"

#include <atomic>

#if defined(__SANITIZE_ADDRESS__)
#define TALUS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TALUS_TEST_ASAN 1
#endif
#endif

namespace {
std::atomic<bool> armed{false};
std::atomic<std::size_t> calls{0};
inline void note() {
  if (armed.load(std::memory_order_relaxed)) calls.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

namespace talus_test {
std::size_t disarm_alloc_trap() {
  armed = false;
  return calls.load();
}
}  // namespace talus_test

#ifdef TALUS_TEST_ASAN
// Declared here: GCC ships no <sanitizer/allocator_interface.h>, but its libasan (like
// clang's) exports the function.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*)(const volatile void*, std::size_t),
                                                         void (*)(const volatile void*));

namespace {
void on_malloc(const volatile void*, std::size_t) { note(); }
void on_free(const volatile void*) {}
const int installed = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}  // namespace

void talus_test::arm_alloc_trap() {
  (void)installed;
  calls = 0;
  armed = true;
}

#else  // plain build: replace the allocation functions

#include <atomic>
#include <cstdlib>
#include <new>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

void talus_test::arm_alloc_trap() {
  calls = 0;
  armed = true;
}

extern "C" {
void* malloc(std::size_t n) {
  note();
  return __libc_malloc(n);
}
void* calloc(std::size_t a, std::size_t b) {
  note();
  return __libc_calloc(a, b);
}
void* realloc(void* p, std::size_t n) {
  note();
  return __libc_realloc(p, n);
}
void* aligned_alloc(std::size_t al, std::size_t n) {
  note();
  return __libc_memalign(al, n);
}
int posix_memalign(void** out, std::size_t al, std::size_t n) {
  note();
  *out = __libc_memalign(al, n);
  return *out ? 0 : 12;
}
void free(void* p) { __libc_free(p); }
}

void* operator new(std::size_t n) {
  note();
  if (void* p = __libc_malloc(n ? n : 1)) return p;
  std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  note();
  return __libc_malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return operator new(n, std::nothrow); }
void* operator new(std::size_t n, std::align_val_t al) {
  note();
  if (void* p = __libc_memalign(static_cast<std::size_t>(al), n ? n : 1)) return p;
  std::abort();
}
void* operator new[](std::size_t n, std::align_val_t al) { return operator new(n, al); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }

#endif  // TALUS_TEST_ASAN
