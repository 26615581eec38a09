#pragma once
// Shared pieces of the talus fuzz targets: the byte reader and scalar decoders, the promise
// checks (finite outputs, zero outputs on failure, bitwise determinism) and the heap hook.
// A broken promise prints one line (function, status, promise) and aborts, so libFuzzer
// (or the replay driver) keeps the input.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include <talus/talus.hpp>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TALUS_FUZZ_HEAP_HOOK 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TALUS_FUZZ_HEAP_HOOK 1
#endif
#ifdef TALUS_FUZZ_HEAP_HOOK
// Declared here: GCC ships no <sanitizer/allocator_interface.h>, but its libasan (and
// clang's, and libFuzzer's) exports the function.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, std::size_t),
                                                         void (*free_hook)(const volatile void*));
#endif

namespace talus_fuzz {

using talus::Status;

// ---- findings ------------------------------------------------------------------------------

/// Prints the finding and aborts; with TALUS_FUZZ_KEEP_GOING=1 in the environment (triage of a
/// whole corpus with the replay driver) it prints and returns instead.
inline void finding(const char* function, Status s, const char* promise, const char* detail = "") {
  std::fprintf(stderr, "TALUS FUZZ FINDING: %s returned %s: %s%s%s\n", function, talus::to_string(s), promise,
               detail[0] ? ": " : "", detail);
  std::fflush(stderr);
  static const bool keep_going = std::getenv("TALUS_FUZZ_KEEP_GOING") != nullptr;
  if (!keep_going) std::abort();
}

// ---- heap hook (promise 5): counts malloc/free while armed --------------------------------

// Per thread: only the thread that armed the hook counts. libFuzzer's own threads (the RSS
// watcher starts while the first input runs) allocate at any time; counted globally, a thread
// start inside a talus call would be reported as that call's heap use.
inline thread_local volatile int g_heap_armed = 0;
inline thread_local volatile long g_heap_calls = 0;

#ifdef TALUS_FUZZ_HEAP_HOOK
inline void heap_malloc_hook(const volatile void*, std::size_t) {
  if (g_heap_armed) g_heap_calls = g_heap_calls + 1;
}
inline void heap_free_hook(const volatile void*) {
  if (g_heap_armed) g_heap_calls = g_heap_calls + 1;
}
inline void install_heap_hook() {
  static bool installed = false;
  if (!installed) {
    __sanitizer_install_malloc_and_free_hooks(heap_malloc_hook, heap_free_hook);
    installed = true;
  }
}
#else
inline void install_heap_hook() {}
#endif

/// Calls f(a...) through one out-of-line copy: a group run twice is compiled once (the talus
/// calls are instantiated and optimised once per group, not once per run).
template <class F, class... A>
[[gnu::noinline]] void call_once_compiled(F& f, A&... a) {
  f(a...);
}

/// Runs f() (talus calls only) with the heap hook armed; a heap call is a finding.
template <class F>
inline auto no_heap(const char* function, F&& f) {
  install_heap_hook();
  g_heap_calls = 0;
  g_heap_armed = 1;
  auto r = f();
  g_heap_armed = 0;
  if (g_heap_calls != 0) finding(function, r, "heap used inside a talus call");
  return r;
}

/// A model built at start-up must pass check_model (else the harness itself is wrong).
template <class M>
M checked_model(M m, const char* name) {
  const Status s = talus::check_model(m);
  if (s != Status::ok) finding("check_model", s, "a test model is refused", name);
  return m;
}

/// Fills an output (or a whole output struct) with 0xFF bytes (NaN) so that a value a talus
/// call did not write is neither finite nor zero, and two runs start from the same bytes.
template <class T>
void poison(T& x) {
  std::memset(static_cast<void*>(&x), 0xFF, sizeof(T));
}

/// A fresh T for each input, in static storage (no heap): the previous input's object is
/// destroyed and a default-constructed one takes its place.
template <class T>
T& fresh_static() {
  alignas(T) static unsigned char storage[sizeof(T)];
  static T* live = nullptr;
  if (live) live->~T();
  live = new (storage) T;
  return *live;
}

// ---- input decoding --------------------------------------------------------------------------

/// Reads the fuzz input front to back; past the end every read gives zero bytes.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}
  std::uint8_t byte() { return i_ < n_ ? p_[i_++] : 0; }
  bool bit() { return (byte() & 1) != 0; }
  bool empty() const { return i_ >= n_; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(byte() | (byte() << 8)); }
  double raw_double() {
    std::uint8_t b[8];
    for (auto& x : b) x = byte();
    double d;
    std::memcpy(&d, b, 8);
    return d;
  }
  /// One byte → a moderate value in [−3.9, 3.9] (step 1/32), 8 of 256 bytes → an extreme.
  double nice_double() {
    const std::uint8_t b = byte();
    static constexpr double extremes[8] = {
        1e200, -1e200, 1e-320, -0.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        1e7,   -1e10};
    if (b >= 248) return extremes[b - 248];
    return (static_cast<int>(b) - 124) / 32.0;
  }
  /// Raw 8-byte doubles (NaN, Inf, 1e300, denormals) or nice ones, by the input's mode bit.
  double scalar() { return raw_ ? raw_double() : nice_double(); }
  void set_raw(bool raw) { raw_ = raw; }
  bool raw() const { return raw_; }
  template <class V>
  void fill(V& v) {
    for (Eigen::Index i = 0; i < v.size(); ++i) v.data()[i] = scalar();
  }
  /// A fixed-size Eigen value, every entry from scalar().
  template <class V>
  V value() {
    V v;
    fill(v);
    return v;
  }
  /// An index for a table of n entries: mostly 0..n−1, sometimes −2, −1, n, n+1 or huge.
  int index(int n) {
    const std::uint8_t b = byte();
    if (b < 224) return n > 0 ? b % n : -1;
    static constexpr int odd[8] = {
        -1, -2, 0, 0, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), 1 << 20, -1000};
    const int k = (b - 224) % 12;
    if (k < 8) return odd[k] == 0 ? n : odd[k];
    return n + (k - 8);
  }
  /// A ReferenceFrame, mostly valid, sometimes a raw byte outside the enumerators.
  talus::ReferenceFrame reference_frame() {
    const std::uint8_t b = byte();
    return static_cast<talus::ReferenceFrame>(b < 224 ? b % 3 : b);
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t i_ = 0;
  bool raw_ = false;
};

/// The entry of the scalar-generic targets (fuzz_cone, fuzz_lcp, fuzz_linalg): bit 0 of the
/// first byte picks the scalar (1: float, 0: double), the first byte goes to `run` as the mode
/// byte and the rest is read through a Reader. run(S{}, mode, reader) for S = float or double.
template <class Run>
int run_by_scalar(const std::uint8_t* data, std::size_t size, Run run) {
  if (size < 2) return 0;
  Reader r(data + 1, size - 1);
  if (data[0] & 1) run(float{}, data[0], r);
  else run(double{}, data[0], r);
  return 0;
}

inline bool valid_rf(talus::ReferenceFrame rf) { return static_cast<unsigned>(rf) <= 2; }

/// Normalises every quaternion of q in the harness (the zero or non-finite quaternion → identity).
template <class ModelT, class Q>
void normalize_quaternions(Q& q) {
  using Tree = typename ModelT::Tree;
  talus::static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using J = typename Tree::template Joint<I>;
    if constexpr (J::has_quaternion) {
      auto quat = q.template segment<4>(Tree::idx_q[I] + J::nq - 4);
      const double n = std::sqrt(quat.squaredNorm());
      if (std::isfinite(n) && n > 1e-150) quat /= n;
      else quat << 1, 0, 0, 0;
    }
  });
}

// ---- promise checks -------------------------------------------------------------------------

/// A configuration from the input; its quaternions normalised when `normalize` (else as read:
/// unnormalised, zero, NaN).
template <class ModelT>
typename ModelT::ConfigVector read_config(Reader& r, bool normalize) {
  auto q = r.value<typename ModelT::ConfigVector>();
  if (normalize) normalize_quaternions<ModelT>(q);
  return q;
}

template <class M>
bool finite(const M& m) {
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (!std::isfinite(m.data()[i])) return false;
  return true;
}
template <class M>
bool all_zero(const M& m) {
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (m.data()[i] != 0.0) return false;
  return true;
}
inline bool finite(const talus::Transform<double>& T) { return finite(T.R) && finite(T.p); }
inline bool all_zero(const talus::Transform<double>& T) { return all_zero(T.R) && all_zero(T.p); }

/// Promises 2 (ok ⇒ finite) and 3 (not ok ⇒ zero) for one output.
template <class M>
void check_output(const char* function, Status s, const M& out) {
  if (s == Status::ok && !finite(out)) finding(function, s, "ok but an output is not finite");
  if (s != Status::ok && !all_zero(out)) finding(function, s, "not ok but an output is not zero");
}

/// Promise 4: two runs (fresh workspaces) give the same bits.
template <class T>
void check_same_bits(const char* function, Status s1, Status s2, const T& a, const T& b) {
  if (s1 != s2) finding(function, s1, "same input, different status");
  if (std::memcmp(&a, &b, sizeof(T)) != 0) finding(function, s1, "same input, different output bits");
}
template <class M>
void check_same_bits_dyn(const char* function, Status s1, Status s2, const M& a, const M& b) {
  if (s1 != s2) finding(function, s1, "same input, different status");
  if (a.rows() != b.rows() || a.cols() != b.cols() ||
      (a.size() > 0 &&
       std::memcmp(a.data(), b.data(), sizeof(typename M::Scalar) * static_cast<std::size_t>(a.size())) != 0))
    finding(function, s1, "same input, different output bits");
}

template <class M>
double max_abs(const M& m) {
  double r = 0;
  for (Eigen::Index i = 0; i < m.size(); ++i) r = std::fmax(r, std::fabs(m.data()[i]));
  return r;
}

/// Residual check: max|r| ≤ tol · scale, else a finding (promise 2).
template <class R>
void check_residual(const char* function, const char* what, const R& r, double tol, double scale) {
  const double e = max_abs(r);
  if (!(e <= tol * scale)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s residual %.3g > %.3g (tol %.1g x scale %.3g)", what, e, tol * scale, tol, scale);
    finding(function, Status::ok, "ok but the equations do not hold", buf);
  }
}

/// Largest |translation| of any body in world (data.oMi): world-frame algorithms lose about
/// eps·(1 + |p|)² to cancellation (inertias about the world origin), so tolerances scale with it.
template <class DataT>
double position_scale(const DataT& d) {
  double p = 0;
  for (const auto& T : d.oMi) p = std::fmax(p, max_abs(T.p));
  return 1 + p;
}

}  // namespace talus_fuzz
