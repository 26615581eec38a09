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
  Force<S> operator*(const Motion<S>& v) const {
    Force<S> h;
    const Vector3<S> w = v.template head<3>();
    const Vector3<S> lin = mass * (v.template tail<3>() - com.cross(w));  // m (v + ω × c)
    h.template tail<3>() = lin;
    h.template head<3>() = I_c * w + com.cross(lin);
    return h;
  }

  /// Rotational inertia about the frame origin: I_c − m [c]×[c]×.
  Matrix3<S> inertia_about_origin() const {
    const Matrix3<S> cx = skew<S>(com);
    return I_c - mass * cx * cx;
  }

  /// The 6x6 matrix (see file comment).
  Matrix6<S> matrix() const {
    Matrix6<S> M;
    const Matrix3<S> cx = skew<S>(com);
    M.template topLeftCorner<3, 3>() = I_c - mass * cx * cx;
    M.template topRightCorner<3, 3>() = mass * cx;
    M.template bottomLeftCorner<3, 3>() = -mass * cx;
    M.template bottomRightCorner<3, 3>() = mass * Matrix3<S>::Identity();
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
  Inertia<T> cast() const { return Inertia<T>(T(mass), com.template cast<T>(), I_c.template cast<T>()); }
};

/// A 6x6 symmetric spatial inertia (composite or articulated) expressed in b, re-expressed
/// in a given aMb:  ᵃX_b* I ᵇX_a. Done with 3x3 blocks, about 1/3 the work of 6x6 products.
template <class S>
inline Matrix6<S> transform_inertia_matrix(const Transform<S>& aMb, const Matrix6<S>& I) {
  const Matrix3<S>& R = aMb.R;
  const Matrix3<S> A = R * I.template topLeftCorner<3, 3>() * R.transpose();
  const Matrix3<S> B = R * I.template topRightCorner<3, 3>() * R.transpose();
  const Matrix3<S> C = R * I.template bottomRightCorner<3, 3>() * R.transpose();
  const Matrix3<S> px = skew<S>(aMb.p);
  const Matrix3<S> D = B + px * C;  // top-right block after translation
  Matrix6<S> out;
  out.template topLeftCorner<3, 3>() = A + px * B.transpose() - D * px;
  out.template topRightCorner<3, 3>() = D;
  out.template bottomLeftCorner<3, 3>() = D.transpose();
  out.template bottomRightCorner<3, 3>() = C;
  return out;
}

}  // namespace talus
