#pragma once
// Selects the model a test executable runs on. Each test executable is compiled once per
// model with (see tests/CMakeLists.txt):
//   TALUS_TEST_MODEL_HEADER  header to include ("support/hand_models.hpp" or <talus/models/X.hpp>)
//   TALUS_TEST_MODEL_NS      namespace holding Model<S>, make_model<S>(), frame_id()
//   TALUS_TEST_MODEL_NAME    string for messages
//   TALUS_TEST_FRAME         name of the foot / tool frame used by frame tests
#include TALUS_TEST_MODEL_HEADER

namespace talus_test {
namespace tm = TALUS_TEST_MODEL_NS;
using TestModel = tm::Model<double>;
inline constexpr const char* model_name = TALUS_TEST_MODEL_NAME;
inline constexpr int test_frame = tm::frame_id(TALUS_TEST_FRAME);
static_assert(test_frame >= 0, "the test frame must exist in the model");
inline const TestModel& test_model() {
  static const TestModel m = tm::make_model<double>();
  return m;
}
}  // namespace talus_test
