#pragma once
/// \file inertia.hpp
/// Spatial inertia of a rigid body, held as (mass, center of mass, rotational inertia).
///
///   mass  m (kg);
///   com   c (m): center of mass, in the body frame;
///   I_c   (kg·m²): rotational inertia about the center of mass, body-frame axes.
/// As a 6x6 matrix in the body frame ([angular; linear] ordering):
///   I = [ I_c − m [c]×[c]×   m [c]× ]
///       [ −m [c]×            m 1    ]
#include <talus/math/transform.hpp>

namespace talus {

template <class S>
struct Inertia {
  S mass = S(0);
  Vector3<S> com = Vector3<S>::Zero();
  Matrix3<S> I_c = Matrix3<S>::Zero();

  Inertia() = default;
  Inertia(S m, const Vector3<S>& c, const Matrix3<S>& Ic) : mass(m), com(c), I_c(Ic) {}
  static Inertia Zero() { return Inertia(); }

  /// Momentum of the body moving with spatial velocity v: h = I v (force-type vector).
  TALUS_INLINE Force<S> operator*(const Motion<S>& v) const {
    const Vector3<S> w = head3(v);
    const Vector3<S> lin = mass * (tail3(v) - cross<S>(com, w));  // m (v + ω × c)
    return from_halves<S>(mul<S>(I_c, w) + cross<S>(com, lin), lin);
  }

  /// Rotational inertia about the frame origin: I_c − m [c]×[c]×.
  Matrix3<S> inertia_about_origin() const {
    const Matrix3<S> cx = skew<S>(com);
    return I_c - mass * cx * cx;
  }

  /// The 6x6 matrix (see file comment).
  TALUS_INLINE Matrix6<S> matrix() const {
    Matrix6<S> M;
    const S m = mass, x = com[0], y = com[1], z = com[2];
    const S mx = m * x, my = m * y, mz = m * z;
    // I_c − m [c]×[c]× = I_c + m (|c|² 1 − c cᵀ)
    M(0, 0) = I_c(0, 0) + my * y + mz * z;
    M(1, 1) = I_c(1, 1) + mx * x + mz * z;
    M(2, 2) = I_c(2, 2) + mx * x + my * y;
    M(0, 1) = M(1, 0) = I_c(0, 1) - mx * y;
    M(0, 2) = M(2, 0) = I_c(0, 2) - mx * z;
    M(1, 2) = M(2, 1) = I_c(1, 2) - my * z;
    // m [c]× and its transpose −m [c]×
    M(0, 3) = S(0), M(0, 4) = -mz, M(0, 5) = my;
    M(1, 3) = mz, M(1, 4) = S(0), M(1, 5) = -mx;
    M(2, 3) = -my, M(2, 4) = mx, M(2, 5) = S(0);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) M(3 + j, i) = M(i, 3 + j);
    M.template bottomRightCorner<3, 3>() = m * Matrix3<S>::Identity();
    return M;
  }

  /// Same body, expressed in frame a, given aMb (this inertia is in b).
  Inertia transformed(const Transform<S>& aMb) const {
    return Inertia(mass, aMb.act_point(com), aMb.R * I_c * aMb.R.transpose());
  }

  /// Sum of two inertias expressed in the same frame (rigidly joined bodies).
  Inertia operator+(const Inertia& o) const {
    const S m = mass + o.mass;
    if (!(m > S(0))) return Inertia();
    const Vector3<S> c = (mass * com + o.mass * o.com) / m;
    const Matrix3<S> d1 = skew<S>(com - c), d2 = skew<S>(o.com - c);
    return Inertia(m, c, I_c + o.I_c - mass * d1 * d1 - o.mass * d2 * d2);
  }

  /// Kinetic energy ½ vᵀ I v (J).
  S kinetic_energy(const Motion<S>& v) const { return S(0.5) * v.dot((*this) * v); }

  template <class T>
  Inertia<T> cast() const {
    return Inertia<T>(T(mass), com.template cast<T>(), I_c.template cast<T>());
  }
};

/// Spatial inertia held as (m, h = m c, I_o = inertia about the frame origin): the form in
/// which inertias expressed in one common frame add by plain addition (composite bodies in
/// CRBA, subtree inertias). Same 6x6 matrix as Inertia: [I_o  [h]×; −[h]×  m 1].
template <class S>
struct InertiaSum {
  S mass = S(0);
  Vector3<S> h = Vector3<S>::Zero();
  Matrix3<S> I_o = Matrix3<S>::Zero();

  /// Inertia Y (expressed in frame b) re-expressed in frame a, given aMb.
  TALUS_INLINE static InertiaSum from(const Inertia<S>& Y, const Transform<S>& aMb) {
    InertiaSum r;
    const Matrix3<S>& R = aMb.R;
    const Vector3<S> c = aMb.act_point(Y.com);
    const S m = Y.mass;
    r.mass = m;
    r.h = m * c;
    // R I_c Rᵀ (symmetric: 6 entries) + m (|c|² 1 − c cᵀ), written out
    Matrix3<S> RI;
    RI.col(0) = mul<S>(R, Y.I_c.col(0));
    RI.col(1) = mul<S>(R, Y.I_c.col(1));
    RI.col(2) = mul<S>(R, Y.I_c.col(2));
    const S c2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    for (int a = 0; a < 3; ++a)
      for (int b = a; b < 3; ++b) {
        const S v =
            RI(a, 0) * R(b, 0) + RI(a, 1) * R(b, 1) + RI(a, 2) * R(b, 2) + m * ((a == b ? c2 : S(0)) - c[a] * c[b]);
        r.I_o(a, b) = v;
        r.I_o(b, a) = v;
      }
    return r;
  }
  TALUS_INLINE InertiaSum& operator+=(const InertiaSum& o) {
    mass += o.mass;
    h += o.h;
    I_o += o.I_o;
    return *this;
  }
  /// Momentum I v of a motion v expressed in the same frame.
  TALUS_INLINE Force<S> operator*(const Motion<S>& v) const {
    const Vector3<S> w = head3(v), vl = tail3(v);
    return from_halves<S>(mul<S>(I_o, w) + cross<S>(h, vl), mass * vl - cross<S>(h, w));
  }
  /// Back to (m, c, I_c) form.
  Inertia<S> inertia() const {
    if (!(mass > S(0))) return Inertia<S>(S(0), Vector3<S>::Zero(), I_o);
    const Vector3<S> c = h / mass;
    return Inertia<S>(mass, c, I_o - mass * (c.squaredNorm() * Matrix3<S>::Identity() - c * c.transpose()));
  }
};

namespace detail {
/// R M Rᵀ, written out (Eigen's chained 3x3 products do not inline in the unrolled passes).
template <class S, class Mat>
TALUS_INLINE Matrix3<S> congruence(const Matrix3<S>& R, const Mat& M) {
  Matrix3<S> RM, out;
  RM.col(0) = mul<S>(R, Vector3<S>(M.col(0)));
  RM.col(1) = mul<S>(R, Vector3<S>(M.col(1)));
  RM.col(2) = mul<S>(R, Vector3<S>(M.col(2)));
  // out = RM Rᵀ: column j is RM · (row j of R)
  for (int j = 0; j < 3; ++j) out.col(j) = mul<S>(RM, Vector3<S>(R.row(j).transpose()));
  return out;
}
/// [p]× X, column by column.
template <class S>
TALUS_INLINE Matrix3<S> cross_columns(const Vector3<S>& p, const Matrix3<S>& X) {
  Matrix3<S> out;
  for (int j = 0; j < 3; ++j) out.col(j) = cross<S>(p, Vector3<S>(X.col(j)));
  return out;
}
}  // namespace detail

/// A 6x6 symmetric spatial inertia (composite or articulated) expressed in b, re-expressed
/// in a given aMb:  ᵃX_b* I ᵇX_a. Done with 3x3 blocks (rotate, then shift by p):
///   A' = R A Rᵀ,  B' = R B Rᵀ,  C' = R C Rᵀ;   D = B' + [p]× C'
///   result = [ A' + [p]× B'ᵀ − D [p]×   D ]
///            [ Dᵀ                        C' ]
template <class S>
inline Matrix6<S> transform_inertia_matrix(const Transform<S>& aMb, const Matrix6<S>& I) {
  const Matrix3<S>& R = aMb.R;
  const Matrix3<S> A = detail::congruence<S>(R, I.template topLeftCorner<3, 3>());
  const Matrix3<S> B = detail::congruence<S>(R, I.template topRightCorner<3, 3>());
  const Matrix3<S> C = detail::congruence<S>(R, I.template bottomRightCorner<3, 3>());
  const Matrix3<S> D = B + detail::cross_columns<S>(aMb.p, C);
  // − D [p]× = ([p]× Dᵀ)ᵀ
  const Matrix3<S> Dt = D.transpose(), Bt = B.transpose();
  Matrix6<S> out;
  out.template topLeftCorner<3, 3>() =
      A + detail::cross_columns<S>(aMb.p, Bt) + detail::cross_columns<S>(aMb.p, Dt).transpose();
  out.template topRightCorner<3, 3>() = D;
  out.template bottomLeftCorner<3, 3>() = Dt;
  out.template bottomRightCorner<3, 3>() = C;
  return out;
}

}  // namespace talus
