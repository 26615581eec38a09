// The freestanding C and C++ runtime that talus and its programs need on bare-metal x86
// (no C library: toolchains/i686-baremetal.cmake links -nostdlib ... -lgcc).
//   memcpy, memmove, memset, memcmp   GCC emits calls to them (struct copies, zeroing,
//                         std::memcpy for bit casts) even with -ffreestanding. rep movsb /
//                         stosb: short and fast enough on every x86 since the P6 (ERMSB).
//   strlen                GCC turns a counting loop into a call to it (-fbuiltin at -O2; seen
//                         in targets/freertos/fault_test.cpp): repne scasb, since a C loop
//                         here could itself become a call to strlen.
//   strcmp                std::strcmp (Model::frame_id, by name: the HIL firmware's feet).
//   __cxa_pure_virtual    vtable slot of a pure virtual function: a fault if ever called.
//   operator delete       referenced by the deleting destructor of any class with a virtual
//                         destructor (never called: nothing is allocated with new).
//   atexit, __cxa_atexit  static objects with destructors register them; firmware never
//                         exits and talus::port::exit does not run them, so nothing is kept.
// Deliberately absent: malloc, free, operator new. A program that needs the heap fails to
// link (undefined reference), which is the no-heap guarantee of this port.
#include <cstddef>
#include <cstdint>

#include <talus/rt/port.hpp>

extern "C" {

void* memcpy(void* dst, const void* src, std::size_t n) noexcept {
  void* d = dst;
  asm volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
  return dst;
}

void* memmove(void* dst, const void* src, std::size_t n) noexcept {
  unsigned char* d = static_cast<unsigned char*>(dst);
  const unsigned char* s = static_cast<const unsigned char*>(src);
  if (d == s || n == 0) return dst;
  if (d < s || d >= s + n) return memcpy(dst, src, n);
  // Overlap with dst above src: copy backwards (direction flag set only for this copy).
  unsigned char* dl = d + n - 1;
  const unsigned char* sl = s + n - 1;
  asm volatile("std\n\trep movsb\n\tcld" : "+D"(dl), "+S"(sl), "+c"(n) : : "memory");
  return dst;
}

void* memset(void* dst, int c, std::size_t n) noexcept {
  void* d = dst;
  asm volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
  return dst;
}

int memcmp(const void* a, const void* b, std::size_t n) noexcept {
  const unsigned char* p = static_cast<const unsigned char*>(a);
  const unsigned char* q = static_cast<const unsigned char*>(b);
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != q[i]) return p[i] < q[i] ? -1 : 1;
  return 0;
}

std::size_t strlen(const char* s) noexcept {
  const char* p = s;
  std::size_t n = ~std::size_t(0);
  asm volatile("repne scasb" : "+D"(p), "+c"(n) : "a"(0), "m"(*(const char(*)[])s));
  return ~n - 1;  // ecx counted down once per byte scanned, the terminating 0 included
}

int strcmp(const char* a, const char* b) noexcept {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(a);
  const unsigned char* q = reinterpret_cast<const unsigned char*>(b);
  while (*p != 0 && *p == *q) {
    ++p;
    ++q;
  }
  return *p < *q ? -1 : (*p > *q ? 1 : 0);
}

void __cxa_pure_virtual() { talus::port::fault("pure virtual function called"); }

int atexit(void (*)()) noexcept { return 0; }
int __cxa_atexit(void (*)(void*), void*, void*) noexcept { return 0; }
void* __dso_handle = nullptr;

}  // extern "C"

void operator delete(void*) noexcept { talus::port::fault("operator delete called (no heap)"); }
void operator delete(void*, std::size_t) noexcept { talus::port::fault("operator delete called (no heap)"); }
