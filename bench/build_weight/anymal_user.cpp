// The build-weight fixture (issue 13): a user's source for one generated robot that calls every
// algorithm and the constrained solvers, the way firmware does: ANYmal C on its four feet.
// tools/build-weight.sh compiles it twice, header-only (talus instantiates everything here)
// and against the compiled model library (talus_add_model(... COMPILED): declarations only),
// with /usr/bin/time -v, and runs both: their outputs must be identical to the last bit.
#include <talus/constraints.hpp>
#include <talus/models/anymal_c.hpp>
#include <talus/talus.hpp>

#include <cstdio>

namespace anymal = talus::models::anymal_c;
using Model = anymal::Model<double>;
using Feet = talus::ConstraintSet<Model, 12>;

static const Model model = anymal::make_model<double>();
static talus::Data<Model> data;
static Feet feet;

int main() {
  using V3 = talus::Vector3<double>;
  using talus::Status;
  int bad = 0;
  auto check = [&](Status s) { bad += s != Status::ok; };
  for (int foot : {anymal::frame::LF_FOOT, anymal::frame::RF_FOOT, anymal::frame::LH_FOOT, anymal::frame::RH_FOOT})
    check(feet.add_contact(model, foot, {V3::UnitX(), V3::UnitY(), V3::UnitZ()}));
  check(feet.bind(model));

  Model::ConfigVector q;
  q << 0.1, -0.2, 0.528, 0.99, 0.05, -0.08, 0.1, -0.1, 0.7, -1.0, -0.1, -0.7, 1.0, 0.1, 0.7, -1.0, 0.1, -0.7, 1.0;
  check(talus::normalize(model, q));
  Model::TangentVector v, tau, a, out;
  for (int i = 0; i < Model::nv; ++i) {
    v[i] = 0.3 * ((i * 7) % 5 - 2);
    tau[i] = i < 6 ? 0.0 : 2.0 * ((i * 3) % 7 - 3);
    a[i] = 0.1 * ((i * 5) % 9 - 4);
  }
  double sum = 0;  // every output folded into one number per call, printed in full

  check(talus::forward_kinematics(model, data, q, v, a));
  check(talus::crba(model, data, q));
  sum += data.H.sum();
  check(talus::rnea(model, data, q, v, a, out));
  sum += out.sum();
  check(talus::nonlinear_effects(model, data, q, v, out));
  sum += out.sum();
  check(talus::generalized_gravity(model, data, q, out));
  sum += out.sum();
  check(talus::aba(model, data, q, v, tau, out));
  sum += out.sum();
  check(talus::compute_joint_jacobians(model, data, q));
  Eigen::Matrix<double, 6, Model::nv> J;
  Eigen::Matrix<double, 3, Model::nv> Jc;
  check(talus::frame_jacobian(model, data, anymal::frame::LF_FOOT, talus::ReferenceFrame::local_world_aligned, J));
  sum += J.sum();
  check(talus::frame_jacobian(model, data, q, anymal::frame::RH_FOOT, talus::ReferenceFrame::world, J));
  sum += J.sum();
  check(talus::center_of_mass(model, data, q, v));
  sum += data.com.sum() + data.vcom.sum();
  check(talus::com_jacobian(model, data, q, Jc));
  sum += Jc.sum();
  check(talus::centroidal_momentum_matrix(model, data, q, J));
  sum += J.sum();
  talus::Force<double> hg;
  check(talus::centroidal_momentum(model, data, q, v, hg));
  sum += hg.sum();

  check(talus::forward_dynamics_range_space(model, data, feet, q, v, tau, out));
  sum += out.sum() + feet.lambda.sum();
  check(talus::forward_dynamics_direct(model, data, feet, q, v, tau, out, talus::KKTMethod::ldlt));
  sum += out.sum() + feet.lambda.sum();
  check(talus::forward_dynamics_null_space(model, data, feet, q, v, tau, out));
  sum += out.sum() + feet.lambda.sum();
  check(talus::compute_impulse_range_space(model, data, feet, q, v, out));
  sum += out.sum() + feet.lambda.sum();
  check(talus::compute_impulse_direct(model, data, feet, q, v, out));
  sum += out.sum() + feet.lambda.sum();

  std::printf("anymal_user: %d calls not ok, checksum %.17g\n", bad, sum);
  return bad == 0 ? 0 : 1;
}
