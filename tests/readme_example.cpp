// The first-call example of docs/usage.md ("A first call"; it was README.md's usage example
// before the README's example became the contact program, tests/consumer/contact.cpp),
// compiled with the firmware flags so the page cannot rot. Keep it identical to that block.
#include <talus/models/solo12.hpp>  // generated at build time
#include <talus/talus.hpp>

namespace solo = talus::models::solo12;
using Model = solo::Model<double>;  // nq = 19, nv = 18, known at compile time

static const Model model = solo::make_model<double>();  // set-up (parameters are data)
static talus::Data<Model> data;                         // the whole workspace, no heap

void control_step(const Model::ConfigVector& q, const Model::TangentVector& v, const Model::TangentVector& tau,
                  Model::TangentVector& ddq) {
  if (talus::aba(model, data, q, v, tau, ddq) != talus::Status::ok) {
    // invalid_input (NaN, unnormalised quaternion) or singular; ddq was set to zero
  }
  Model::Jacobian6 J;
  constexpr int foot = solo::frame_id("FL_FOOT");  // resolved at compile time
  (void)talus::frame_jacobian(model, data, q, foot, talus::ReferenceFrame::local_world_aligned, J);
}
