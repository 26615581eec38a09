// The HIL firmware: the state estimator (talus/estimation/legged_estimator.hpp) and balance
// controller (talus/control/balance_controller.hpp) of one robot in the link loop (firmware.hpp).
// The robot: hil/robots (HIL_ROBOT_ANYMAL_C: anymal_c; without it solo12), its model, feet,
// postures, standing height, torque cap and foot radius. Bare metal Cortex-M: the link is UART0 (QEMU: -serial tcp:...), the startup
// code has called port::init(). POSIX: the link is stdin/stdout (the harness starts the
// process with pipes), logs go to stderr. HIL_FREERTOS: the same loop as a FreeRTOS task
// (port/freertos; statically allocated, 4096 stack words: 16 KB on Cortex-M and 32-bit x86),
// the third configuration on the Cortex-M7 and the fourth on bare-metal x86 (port/x86: the
// link is COM2, a 16550 polled; the log COM1).
#include <hil/firmware.hpp>
#if defined(HIL_ROBOT_ANYMAL_C)
#include <hil/robots/anymal_c.hpp>
#else
#include <hil/robots/solo12.hpp>
#endif
#include <talus/rt/port.hpp>
#if defined(HIL_POSIX)
#include <talus/port/posix.hpp>
#endif
#if defined(HIL_FREERTOS)
#include <talus/port/freertos.hpp>
#endif

#ifndef HIL_INSTRUCTIONS_PER_TICK
#define HIL_INSTRUCTIONS_PER_TICK 0
#endif
// port::cycles() ticks per instruction, when a tick is a fraction of an instruction: x86 under
// QEMU -icount shift=3, whose TSC counts virtual ns, 8 per instruction (then
// HIL_INSTRUCTIONS_PER_TICK is 1 and this 8).
#ifndef HIL_TICKS_PER_INSTRUCTION
#define HIL_TICKS_PER_INSTRUCTION 1
#endif
// How many stance feet correct the estimate per period (LeggedEstimatorSettings::feet_per_update;
// 0: all). One, in turn, keeps estimator + controller within the M7's 150 k instructions per
// period (hil/README.md has the figures for one foot and for all four).
#ifndef HIL_FEET_PER_UPDATE
#define HIL_FEET_PER_UPDATE 1
#endif
// The scalar the firmware computes in: double (M7, native), or float (HIL_SCALAR=float: the
// Cortex-M4F, whose FPU is single precision). The wire carries binary32 either way; the
// conversion happens at the firmware's edge (firmware.hpp).
#ifndef HIL_SCALAR
#define HIL_SCALAR double
#endif

namespace {
using S = HIL_SCALAR;
#if defined(HIL_ROBOT_ANYMAL_C)
using Robot = talus::hil::robots::AnymalC;
#else
using Robot = talus::hil::robots::Solo12;
#endif
constexpr const talus::hil::RobotParams& robot = Robot::params;
using Model = Robot::Model<S>;
using Controller = talus::BalanceController<Model>;
// The estimator's filter (docs/estimation.md compares them): LegOdometryEkf, 15 states, fits the
// M7 budget with the controller; HIL_FILTER_INVARIANT builds Hartley's filter with the feet
// in the state (27 states) instead.
#if defined(HIL_FILTER_INVARIANT)
using Estimator = talus::LeggedEstimator<Model, 4, talus::InvariantEkf>;
#else
using Estimator = talus::LeggedEstimator<Model, 4, talus::LegOdometryEkf>;
#endif
const Model model = Robot::make_model<S>();
Controller controller;
Estimator estimator;

void log(const char* s) {
  std::size_t n = 0;
  while (s[n] != 0) ++n;
  talus::port::log_write(s, n);
}

[[noreturn]] void firmware() {
  const int feet[4] = {model.frame_id(robot.feet[0]), model.frame_id(robot.feet[1]), model.frame_id(robot.feet[2]),
                       model.frame_id(robot.feet[3])};
  Controller::Joints stance, swing;
  for (int j = 0; j < Controller::nj; ++j) {
    stance[j] = S(robot.stance[j]);
    swing[j] = S(robot.swing[j]);
  }
  // The rig's robot, given explicitly (the controller has no robot defaults): its standing
  // height, a torque cap where the actuators are weaker than the URDF says (solo12: 2.7 N·m
  // against a placeholder 1000 N·m; anymal_c: none, the URDF's 80 N·m), the safe mode's damping.
  talus::ControllerConfig<S> ccfg;
  ccfg.height = S(robot.height);
  ccfg.torque_limit = S(robot.torque_limit);
  ccfg.damping_safe = S(robot.damping_safe);
  // In float (the M4F) the sticking solve's ε of 1e-7 relative is below float's rounding
  // (2^-24 ≈ 6e-8 per operation, summed over 12 rows): the Cholesky of G_b Q G_bᵀ + εI, rank 6
  // without ε, meets a non-positive pivot ("singular") on most steps. 1e-5 relative keeps it
  // positive with a wrench error far below the sensors' resolution.
  if (sizeof(S) < sizeof(double)) {
    ccfg.regularization = S(1e-5);
    ccfg.tangential_regularization = S(1e-5);
  }
  if (controller.init(model, feet, stance, swing, ccfg) != talus::Status::ok) {
    log("hil firmware: controller init failed\n");
    talus::port::exit(2);
  }
  // The estimator: the rig's feet are spheres of robot.foot_radius centred on the foot frames;
  // the IMU noise is ImuNoise's default (a BMI088, the part the plant simulates).
  talus::LeggedEstimatorSettings<S> ecfg;
  ecfg.foot_height = S(robot.foot_radius);
  ecfg.feet_per_update = HIL_FEET_PER_UPDATE;
  // The tuning (docs/estimation.md, "Tuning"; hil/README.md, "The estimator's consistency"):
  //   - the acceleration's process noise 10 × the BMI088's white-noise density: between two
  //     corrections of a foot the velocity drifts by more than the accelerometer's noise (the
  //     base's vibration, the first-order integration over a period);
  //   - a stance foot's velocity: 3 mm/s of slip, plus 10 % of its speed relative to the base
  //     (the soft contact and the legs' compliance show in proportion to the legs' motion).
  // With these the velocity NEES averages 3 over the full run (the datasheet's density alone:
  // 61, overconfident in every push).
  ecfg.noise.accel = S(10) * ecfg.noise.accel;
  ecfg.model_velocity_std = S(0.003);
  ecfg.odometry_scale_std = S(0.1);
  if (estimator.init(model, {feet[0], feet[1], feet[2], feet[3]}, ecfg) != talus::Status::ok) {
    log("hil firmware: estimator init failed\n");
    talus::port::exit(2);
  }
  log("hil firmware: ");
  log(robot.name);
  log(" estimator and balance controller ready\n");
  talus::hil::FirmwareConfig cfg;
  cfg.instructions_per_tick = HIL_INSTRUCTIONS_PER_TICK;
  cfg.ticks_per_instruction = HIL_TICKS_PER_INSTRUCTION;
  talus::hil::run_firmware(controller, estimator, cfg);
}

#if defined(HIL_FREERTOS)
constexpr std::size_t kStackWords = 4096;  // 16 KB on Cortex-M and 32-bit x86
StaticTask_t g_tcb;
StackType_t g_stack[kStackWords];
// x86: the kernel port starts a task 8 bytes off the 16-byte stack alignment SSE code needs.
TALUS_FREERTOS_TASK_FUNCTION void firmware_task(void*) { firmware(); }
#endif
}  // namespace

int main() {
#if defined(HIL_POSIX)
  talus::port::init();
  talus::port::posix::set_link_fds(0, 1);
#endif
#if defined(HIL_FREERTOS)
  if (!xTaskCreateStatic(firmware_task, "hil-control", kStackWords, nullptr, tskIDLE_PRIORITY + 2, g_stack, &g_tcb))
    talus::port::fault("xTaskCreateStatic failed");
  vTaskStartScheduler();
  talus::port::fault("vTaskStartScheduler returned");
#else
  firmware();
#endif
}
