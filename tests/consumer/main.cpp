// Consumer check: an installed talus, a generated model, one ABA call that must succeed
// and agree with CRBA + RNEA (exit code 0 only if it does).
#include <Eigen/Dense>
#include <cstdio>
#include <talus/models/ur5.hpp>
#include <talus/talus.hpp>

int main() {
  using M = talus::models::ur5::Model<double>;
  static const M model = talus::models::ur5::make_model<double>();
  static talus::Data<M> data;
  M::ConfigVector q = M::ConfigVector::Constant(0.3);
  M::TangentVector v = M::TangentVector::Constant(0.1), tau = M::TangentVector::Zero(), ddq, C;
  if (talus::aba(model, data, q, v, tau, ddq) != talus::Status::ok) return 1;
  if (talus::nonlinear_effects(model, data, q, v, C) != talus::Status::ok) return 2;
  if (talus::crba(model, data, q) != talus::Status::ok) return 3;
  const double err = (data.H * ddq + C - tau).norm();
  std::printf("consumer: ur5 ABA residual %.3g\n", err);
  return err < 1e-9 ? 0 : 4;
}
