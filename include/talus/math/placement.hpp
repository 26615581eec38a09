#pragma once
/// \file placement.hpp
/// The structure of a transform as a type: which entries of R and p are zero or ±1 by
/// construction, and the transform actions that read only the other entries.
///
/// A pattern is a type with two constexpr arrays, `R` (3x3, row-major) and `p` (3), whose
/// entries are pattern::zero, pattern::one, pattern::minus_one or pattern::value. Only the
/// structural entries (zero, ±1) are compile-time facts; a `value` entry is run-time data.
///
/// Placement kinds (the joint placement X_T of a talus::Body, tree.hpp):
///
/// | kind                           | structural entries (type)                        | data            |
/// |--------------------------------|--------------------------------------------------|-----------------|
/// | RotationGeneral                | none                                             | all of R        |
/// | RotationPermutation<C0,C1,C2>  | all of R: column j is sign(Cj) e_(abs(Cj)−1)     | none            |
/// | RotationIdentity               | RotationPermutation<1, 2, 3>: R = 1              | none            |
/// | RotationAbout<A>               | R(A,A) = 1, the rest of row A and column A zero  | the 2x2 block (cos, sin of the angle) |
/// | TranslationGeneral             | none                                             | all of p        |
/// | TranslationZero                | p = 0                                            | none            |
/// | TranslationAlong<A>            | p_k = 0 for k ≠ A                                | p_A (the offset)|
///
/// Exactness: the sparse actions form the same products and sums as the general ones
/// (Transform::act_motion, ...) in the same order, minus the terms whose structural factor
/// is 0 and the multiplications by ±1. For finite values x + 0·y = x and (±1)·y = ±y exactly,
/// so where a pattern holds the results are the general ones to the last bit (a zero may
/// differ in sign). A pattern holds only if the data's structural entries are exactly 0 and
/// ±1: check_model refuses a model whose placements do not fit their kinds.
#include <array>
#include <type_traits>

#include <talus/math/transform.hpp>

namespace talus {

namespace pattern {
using Entry = signed char;
inline constexpr Entry zero = 0;
inline constexpr Entry one = 1;
inline constexpr Entry minus_one = -1;
inline constexpr Entry value = 2;
using Rotation = std::array<Entry, 9>;     ///< row-major
using Translation = std::array<Entry, 3>;  ///< per component

constexpr Rotation all_values() { return {value, value, value, value, value, value, value, value, value}; }
/// The product of two entries: zero if either is, a value if either is, else the sign product.
constexpr Entry times(Entry a, Entry b) {
  if (a == zero || b == zero) return zero;
  if (a == value || b == value) return value;
  return static_cast<Entry>(a * b);
}
/// The sum of the terms t0..tn: zero if all are, the one non-zero term if there is one, else a value.
constexpr Entry sum(const Entry* t, int n) {
  Entry r = zero;
  int nonzero = 0;
  for (int k = 0; k < n; ++k)
    if (t[k] != zero) {
      r = t[k];
      ++nonzero;
    }
  return nonzero > 1 ? value : r;
}
/// Pattern of A B.
constexpr Rotation product(const Rotation& A, const Rotation& B) {
  Rotation r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const Entry t[3] = {times(A[3 * i + 0], B[0 + j]), times(A[3 * i + 1], B[3 + j]), times(A[3 * i + 2], B[6 + j])};
      r[3 * i + j] = sum(t, 3);
    }
  return r;
}
/// Pattern of A x + b.
constexpr Translation affine(const Rotation& A, const Translation& x, const Translation& b) {
  Translation r{};
  for (int i = 0; i < 3; ++i) {
    const Entry t[4] = {times(A[3 * i + 0], x[0]), times(A[3 * i + 1], x[1]), times(A[3 * i + 2], x[2]), b[i]};
    r[i] = sum(t, 4);
  }
  return r;
}
/// Rotation about coordinate axis a by a run-time angle: 1 at (a, a), zero elsewhere in row and
/// column a, values in the 2x2 block.
constexpr Rotation about_axis(int a) {
  Rotation r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[3 * i + j] = (i == a || j == a) ? (i == j ? one : zero) : value;
  return r;
}
constexpr Rotation identity() { return {one, zero, zero, zero, one, zero, zero, zero, one}; }
}  // namespace pattern

/// R with no structural entry.
struct RotationGeneral {
  static constexpr pattern::Rotation R = pattern::all_values();
};

/// A signed axis permutation (a proper rotation, det +1): column j of R is sign(Cj)·e_k with
/// k = |Cj| − 1 (1, 2, 3 for x, y, z). RotationPermutation<1, 2, 3> is the identity;
/// RotationPermutation<1, 3, -2> is a quarter turn about x (y → z, z → −y).
template <int C0, int C1, int C2>
struct RotationPermutation {
 private:
  static constexpr int row(int c) { return (c < 0 ? -c : c) - 1; }
  static constexpr int sign(int c) { return c < 0 ? -1 : 1; }
  static constexpr bool valid() {
    const int c[3] = {C0, C1, C2};
    for (int j = 0; j < 3; ++j)
      if (c[j] == 0 || row(c[j]) > 2) return false;
    if (row(C0) == row(C1) || row(C0) == row(C2) || row(C1) == row(C2)) return false;
    // det = parity of the permutation times the product of the signs
    const int inversions = (row(C0) > row(C1)) + (row(C0) > row(C2)) + (row(C1) > row(C2));
    return (inversions % 2 == 0 ? 1 : -1) * sign(C0) * sign(C1) * sign(C2) == 1;
  }
  static_assert(valid(), "RotationPermutation<C0, C1, C2>: each Cj is ±1, ±2 or ±3, the |Cj| distinct, det +1");
  static constexpr pattern::Rotation make() {
    pattern::Rotation r{};
    const int c[3] = {C0, C1, C2};
    for (int j = 0; j < 3; ++j) r[3 * row(c[j]) + j] = static_cast<pattern::Entry>(sign(c[j]));
    return r;
  }

 public:
  static constexpr pattern::Rotation R = make();
};
using RotationIdentity = RotationPermutation<1, 2, 3>;

/// A rotation about coordinate axis A (0, 1, 2 for x, y, z) by an angle kept as data.
template <int A>
struct RotationAbout {
  static_assert(A >= 0 && A < 3, "RotationAbout<A>: A is 0, 1 or 2");
  static constexpr pattern::Rotation R = pattern::about_axis(A);
};

/// p with no structural entry.
struct TranslationGeneral {
  static constexpr pattern::Translation p = {pattern::value, pattern::value, pattern::value};
};
/// p = 0.
struct TranslationZero {
  static constexpr pattern::Translation p = {pattern::zero, pattern::zero, pattern::zero};
};
/// p along coordinate axis A (0, 1, 2): its other two components are zero.
template <int A>
struct TranslationAlong {
  static_assert(A >= 0 && A < 3, "TranslationAlong<A>: A is 0, 1 or 2");
  static constexpr pattern::Translation p = {A == 0 ? pattern::value : pattern::zero,
                                             A == 1 ? pattern::value : pattern::zero,
                                             A == 2 ? pattern::value : pattern::zero};
};

/// A transform pattern from a rotation kind and a translation kind.
template <class RotationKind, class TranslationKind>
struct PlacementPattern {
  static constexpr pattern::Rotation R = RotationKind::R;
  static constexpr pattern::Translation p = TranslationKind::p;
};
using GeneralPattern = PlacementPattern<RotationGeneral, TranslationGeneral>;

/// True if M's structural entries are exactly what Pat says (0, +1, −1).
template <class Pat, class S>
inline bool fits_pattern(const Transform<S>& M) {
  bool ok = true;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const pattern::Entry e = Pat::R[static_cast<std::size_t>(3 * i + j)];
      if (e != pattern::value) ok = ok && M.R(i, j) == S(e);
    }
    if (Pat::p[static_cast<std::size_t>(i)] == pattern::zero) ok = ok && M.p[i] == S(0);
  }
  return ok;
}

namespace sparse {
/// e·x for a structural entry kind E whose run-time value is r (r unread unless E is a value).
template <pattern::Entry E, class S>
TALUS_INLINE S term(S r, S x) {
  static_assert(E != pattern::zero, "a zero term is dropped, not formed");
  if constexpr (E == pattern::one) return x;
  else if constexpr (E == pattern::minus_one) return -x;
  else return r * x;
}
/// sum + e·x (sum itself for E zero).
template <pattern::Entry E, class S>
TALUS_INLINE S add(S sum, S r, S x) {
  if constexpr (E == pattern::zero) return sum;
  else if constexpr (E == pattern::one) return sum + x;
  else if constexpr (E == pattern::minus_one) return sum - x;
  else return sum + r * x;
}
/// sum − e·x (sum itself for E zero).
template <pattern::Entry E, class S>
TALUS_INLINE S sub(S sum, S r, S x) {
  if constexpr (E == pattern::zero) return sum;
  else if constexpr (E == pattern::one) return sum - x;
  else if constexpr (E == pattern::minus_one) return sum + x;
  else return sum - r * x;
}
/// e0·x0 + e1·x1, the zero terms dropped.
template <pattern::Entry E0, pattern::Entry E1, class S>
TALUS_INLINE S dot2(S r0, S x0, S r1, S x1) {
  if constexpr (E0 != pattern::zero) return add<E1>(term<E0>(r0, x0), r1, x1);
  else if constexpr (E1 != pattern::zero) return term<E1>(r1, x1);
  else return S(0);
}
/// e0·x0 − e1·x1, the zero terms dropped.
template <pattern::Entry E0, pattern::Entry E1, class S>
TALUS_INLINE S diff2(S r0, S x0, S r1, S x1) {
  if constexpr (E0 != pattern::zero) return sub<E1>(term<E0>(r0, x0), r1, x1);
  else if constexpr (E1 != pattern::zero) return -term<E1>(r1, x1);
  else return S(0);
}
/// y + e·x with y's own kind Ey (zero or a value): the zero terms dropped.
template <pattern::Entry Ey, pattern::Entry E, class S>
TALUS_INLINE S plus(S y, S r, S x) {
  if constexpr (Ey != pattern::zero) return add<E>(y, r, x);
  else if constexpr (E != pattern::zero) return term<E>(r, x);
  else return S(0);
}
/// y + x if Ey is not zero, x otherwise (y structurally zero).
template <pattern::Entry Ey, class S>
TALUS_INLINE S plus_if(S x, S y) {
  if constexpr (Ey != pattern::zero) return x + y;
  else return x;
}

/// e0·x0 + e1·x1 + e2·x2, summed left to right like the general product, the zero terms dropped.
template <pattern::Entry E0, pattern::Entry E1, pattern::Entry E2, class S>
TALUS_INLINE S dot(S r0, S x0, S r1, S x1, S r2, S x2) {
  if constexpr (E0 != pattern::zero) return add<E2>(add<E1>(term<E0>(r0, x0), r1, x1), r2, x2);
  else if constexpr (E1 != pattern::zero) return add<E2>(term<E1>(r1, x1), r2, x2);
  else if constexpr (E2 != pattern::zero) return term<E2>(r2, x2);
  else return S(0);
}

/// Row i of R x, R with pattern Pat::R.
template <class Pat, int I, class S>
TALUS_INLINE S row(const Matrix3<S>& R, const Vector3<S>& x) {
  return dot<Pat::R[3 * I], Pat::R[3 * I + 1], Pat::R[3 * I + 2]>(R(I, 0), x[0], R(I, 1), x[1], R(I, 2), x[2]);
}
/// Row i of Rᵀ x (column i of R).
template <class Pat, int I, class S>
TALUS_INLINE S column(const Matrix3<S>& R, const Vector3<S>& x) {
  return dot<Pat::R[I], Pat::R[3 + I], Pat::R[6 + I]>(R(0, I), x[0], R(1, I), x[1], R(2, I), x[2]);
}
template <class Pat, class S>
TALUS_INLINE Vector3<S> mul(const Matrix3<S>& R, const Vector3<S>& x) {
  return Vector3<S>(row<Pat, 0>(R, x), row<Pat, 1>(R, x), row<Pat, 2>(R, x));
}
template <class Pat, class S>
TALUS_INLINE Vector3<S> mul_transpose(const Matrix3<S>& R, const Vector3<S>& x) {
  return Vector3<S>(column<Pat, 0>(R, x), column<Pat, 1>(R, x), column<Pat, 2>(R, x));
}

/// y_i + s·(p × w)_i, s = ±1, p with pattern Pat::p: (p × w)_i = p_j w_k − p_k w_j (j = i+1, k = i+2),
/// its terms with a structural zero p_j or p_k dropped.
template <class Pat, int I, int Sign, class S>
TALUS_INLINE S add_cross(S y, const Vector3<S>& p, const Vector3<S>& w) {
  constexpr int j = (I + 1) % 3, k = (I + 2) % 3;
  constexpr bool has_j = Pat::p[j] != pattern::zero, has_k = Pat::p[k] != pattern::zero;
  if constexpr (has_j && has_k) {
    const S c = p[j] * w[k] - p[k] * w[j];
    return Sign > 0 ? y + c : y - c;
  } else if constexpr (has_j) {
    return Sign > 0 ? y + p[j] * w[k] : y - p[j] * w[k];
  } else if constexpr (has_k) {
    return Sign > 0 ? y - p[k] * w[j] : y + p[k] * w[j];
  } else {
    return y;
  }
}
/// (p × x)_i with p of pattern Pat::p: the general cross product's value without its structural zero terms.
template <class Pat, int I, class S>
TALUS_INLINE S cross(const Vector3<S>& p, const Vector3<S>& x) {
  constexpr int j = (I + 1) % 3, k = (I + 2) % 3;
  constexpr bool has_j = Pat::p[j] != pattern::zero, has_k = Pat::p[k] != pattern::zero;
  if constexpr (has_j && has_k) return p[j] * x[k] - p[k] * x[j];
  else if constexpr (has_j) return p[j] * x[k];
  else if constexpr (has_k) return -(p[k] * x[j]);
  else return S(0);
}
/// Column J of RM Rᵀ: out(i, J) = RM row i · R row J, R of pattern Pat::R.
template <class Pat, int J, class S>
TALUS_INLINE void congruence_column(const Matrix3<S>& R, const Matrix3<S>& RM, Matrix3<S>& out) {
  constexpr pattern::Entry E0 = Pat::R[3 * J], E1 = Pat::R[3 * J + 1], E2 = Pat::R[3 * J + 2];
  out(0, J) = dot<E0, E1, E2>(R(J, 0), RM(0, 0), R(J, 1), RM(0, 1), R(J, 2), RM(0, 2));
  out(1, J) = dot<E0, E1, E2>(R(J, 0), RM(1, 0), R(J, 1), RM(1, 1), R(J, 2), RM(1, 2));
  out(2, J) = dot<E0, E1, E2>(R(J, 0), RM(2, 0), R(J, 1), RM(2, 1), R(J, 2), RM(2, 2));
}
/// R M Rᵀ with R of pattern Pat::R (detail::congruence, inertia.hpp, without the structural terms).
template <class Pat, class S>
TALUS_INLINE Matrix3<S> congruence(const Matrix3<S>& R, const Matrix3<S>& M) {
  Matrix3<S> RM, out;
  RM.col(0) = mul<Pat>(R, Vector3<S>(M.col(0)));
  RM.col(1) = mul<Pat>(R, Vector3<S>(M.col(1)));
  RM.col(2) = mul<Pat>(R, Vector3<S>(M.col(2)));
  congruence_column<Pat, 0>(R, RM, out);
  congruence_column<Pat, 1>(R, RM, out);
  congruence_column<Pat, 2>(R, RM, out);
  return out;
}

template <class Pat, int Sign, class S>
TALUS_INLINE Vector3<S> add_cross(const Vector3<S>& y, const Vector3<S>& p, const Vector3<S>& w) {
  return Vector3<S>(add_cross<Pat, 0, Sign>(y[0], p, w), add_cross<Pat, 1, Sign>(y[1], p, w),
                    add_cross<Pat, 2, Sign>(y[2], p, w));
}
}  // namespace sparse

/// aMb, whose entries follow pattern Pat, as a Plücker transform: the actions of Transform
/// (act_motion: ᵃX_b, inverse_act_motion: ᵇX_a, act_force: ᵃX_b*, inverse_act_force: ᵇX_a*)
/// reading only the entries Pat does not fix.
template <class Pat, class S>
struct SparseTransform {
  const Transform<S>& M;

  TALUS_INLINE Motion<S> act_motion(const Motion<S>& m) const {
    const Vector3<S> w = sparse::mul<Pat>(M.R, head3(m));
    return from_halves<S>(w, sparse::add_cross<Pat, 1>(sparse::mul<Pat>(M.R, tail3(m)), M.p, w));
  }
  TALUS_INLINE Motion<S> inverse_act_motion(const Motion<S>& m) const {
    const Vector3<S> w = head3(m);
    return from_halves<S>(sparse::mul_transpose<Pat>(M.R, w),
                          sparse::mul_transpose<Pat>(M.R, sparse::add_cross<Pat, -1>(tail3(m), M.p, w)));
  }
  TALUS_INLINE Force<S> act_force(const Force<S>& f) const {
    const Vector3<S> fl = sparse::mul<Pat>(M.R, tail3(f));
    return from_halves<S>(sparse::add_cross<Pat, 1>(sparse::mul<Pat>(M.R, head3(f)), M.p, fl), fl);
  }
  TALUS_INLINE Force<S> inverse_act_force(const Force<S>& f) const {
    const Vector3<S> fl = tail3(f);
    return from_halves<S>(sparse::mul_transpose<Pat>(M.R, sparse::add_cross<Pat, -1>(head3(f), M.p, fl)),
                          sparse::mul_transpose<Pat>(M.R, fl));
  }
};

namespace sparse {
/// Column J of A + [p]× Bᵀ + ([p]× Dᵀ)ᵀ, entry by entry in that order (transform_inertia_matrix).
template <class Pat, int J, class S>
TALUS_INLINE void angular_block_column(const Matrix3<S>& A, const Matrix3<S>& Bt, const Matrix3<S>& Dt,
                                       const Vector3<S>& p, Matrix6<S>& out) {
  const Vector3<S> bt = Bt.col(J);
  out(0, J) = A(0, J) + cross<Pat, 0>(p, bt) + cross<Pat, J>(p, Vector3<S>(Dt.col(0)));
  out(1, J) = A(1, J) + cross<Pat, 1>(p, bt) + cross<Pat, J>(p, Vector3<S>(Dt.col(1)));
  out(2, J) = A(2, J) + cross<Pat, 2>(p, bt) + cross<Pat, J>(p, Vector3<S>(Dt.col(2)));
}
}  // namespace sparse

/// ᵃX_b* I ᵇX_a for a symmetric 6x6 inertia I expressed in b, aMb of pattern Pat: the
/// block form of transform_inertia_matrix (inertia.hpp), term for term, without the products
/// by aMb's structural zeros and ones.
template <class Pat, class S>
TALUS_INLINE Matrix6<S> transform_inertia_matrix(const SparseTransform<Pat, S>& X, const Matrix6<S>& I) {
  const Matrix3<S>& R = X.M.R;
  const Vector3<S>& p = X.M.p;
  const Matrix3<S> A = sparse::congruence<Pat>(R, Matrix3<S>(I.template topLeftCorner<3, 3>()));
  const Matrix3<S> B = sparse::congruence<Pat>(R, Matrix3<S>(I.template topRightCorner<3, 3>()));
  const Matrix3<S> C = sparse::congruence<Pat>(R, Matrix3<S>(I.template bottomRightCorner<3, 3>()));
  Matrix3<S> D;
  for (int j = 0; j < 3; ++j) D.col(j) = sparse::add_cross<Pat, 1>(Vector3<S>(B.col(j)), p, Vector3<S>(C.col(j)));
  const Matrix3<S> Dt = D.transpose(), Bt = B.transpose();
  Matrix6<S> out;
  sparse::angular_block_column<Pat, 0>(A, Bt, Dt, p, out);
  sparse::angular_block_column<Pat, 1>(A, Bt, Dt, p, out);
  sparse::angular_block_column<Pat, 2>(A, Bt, Dt, p, out);
  out.template topRightCorner<3, 3>() = D;
  out.template bottomLeftCorner<3, 3>() = Dt;
  out.template bottomRightCorner<3, 3>() = C;
  return out;
}

namespace sparse {
/// Row I of aMb bMc, bMc of pattern Pat.
template <class Pat, int I, class S>
TALUS_INLINE void compose_right_row(const Transform<S>& aMb, const Transform<S>& bMc, Transform<S>& r) {
  const Matrix3<S>& A = aMb.R;
  const Matrix3<S>& B = bMc.R;
  r.R(I, 0) = dot<Pat::R[0], Pat::R[3], Pat::R[6]>(B(0, 0), A(I, 0), B(1, 0), A(I, 1), B(2, 0), A(I, 2));
  r.R(I, 1) = dot<Pat::R[1], Pat::R[4], Pat::R[7]>(B(0, 1), A(I, 0), B(1, 1), A(I, 1), B(2, 1), A(I, 2));
  r.R(I, 2) = dot<Pat::R[2], Pat::R[5], Pat::R[8]>(B(0, 2), A(I, 0), B(1, 2), A(I, 1), B(2, 2), A(I, 2));
  r.p[I] = dot<Pat::p[0], Pat::p[1], Pat::p[2]>(bMc.p[0], A(I, 0), bMc.p[1], A(I, 1), bMc.p[2], A(I, 2)) + aMb.p[I];
}
}  // namespace sparse

/// aMb bMc with bMc following pattern Pat (aMb general): Transform::operator* without the
/// products by bMc's structural zeros and ones.
template <class Pat, class S>
TALUS_INLINE Transform<S> compose_right(const Transform<S>& aMb, const Transform<S>& bMc) {
  Transform<S> r;
  sparse::compose_right_row<Pat, 0>(aMb, bMc, r);
  sparse::compose_right_row<Pat, 1>(aMb, bMc, r);
  sparse::compose_right_row<Pat, 2>(aMb, bMc, r);
  return r;
}

/// aMb bMc with aMb following pattern Pat (bMc general): Transform::operator* without the
/// products by aMb's structural zeros and ones.
template <class Pat, class S>
TALUS_INLINE Transform<S> compose_left(const Transform<S>& aMb, const Transform<S>& bMc) {
  Transform<S> r;
  r.R.col(0) = sparse::mul<Pat>(aMb.R, Vector3<S>(bMc.R.col(0)));
  r.R.col(1) = sparse::mul<Pat>(aMb.R, Vector3<S>(bMc.R.col(1)));
  r.R.col(2) = sparse::mul<Pat>(aMb.R, Vector3<S>(bMc.R.col(2)));
  const Vector3<S> Rp = sparse::mul<Pat>(aMb.R, bMc.p);
  r.p = Vector3<S>(sparse::plus_if<Pat::p[0]>(Rp[0], aMb.p[0]), sparse::plus_if<Pat::p[1]>(Rp[1], aMb.p[1]),
                   sparse::plus_if<Pat::p[2]>(Rp[2], aMb.p[2]));
  return r;
}

}  // namespace talus
