#pragma once
/// \file contact_detection.hpp
/// Which feet touch the ground, for a robot without foot contact switches: from the
/// controller's plan (the feet it stands on) and the state estimate (where the other feet are
/// and how fast they move). The estimator's corrections and the controller's landing both need
/// it (LeggedEstimator::update's `touching`, BalanceController::step's `touching`).
///
/// **Rule, per foot k, once per period** (ContactDetector::update):
///   - in the controller's stance (bit k of `stance`): touching. The controller holds the foot
///     on the ground, and a foot it plans to load is the best prior a firmware has;
///   - just taken out of the stance (lifted): not touching, until the foot has been higher than
///     `clearance` above the ground (it left the ground: a foot that has only started to move
///     is neither sent back to the ground nor used as a stance foot);
///   - in the air: touching once its height above the ground is below `height` and its speed
///     below `speed` for `periods` updates in a row (it came down and stopped: a foot moving
///     over the ground, or one only near it, does not count); it stays touching until the
///     controller takes it into its stance, or until it rises above `clearance` again.
/// The heights and velocities are the estimate's (LeggedEstimator::foot_heights(),
/// foot_velocities()): the contact point's height above the estimate's ground plane z = 0 (m)
/// and its velocity in the world frame (m/s). The estimate's height error (a few mm at most on
/// the HIL rig) is why `height` is 5 mm and not less. A NaN height or velocity never lands a foot.
///
/// **What it does not detect.** A stance foot that loses the ground (the robot tipping, a foot
/// on an edge) still counts as touching: without a force or a switch the plan is all a firmware
/// has. A foot that slips is touching (the estimator's σ_mv covers small slip, not large).
/// This is the "probability of contact" of Bledt et al. (IROS 2018) reduced to its kinematic
/// half, with the gait phase's prior replaced by the controller's stance.
#include <array>
#include <cmath>
#include <cstdint>

#include <talus/math/spatial.hpp>
#include <talus/status.hpp>

namespace talus {

/// Thresholds of ContactDetector (file comment). Defaults: a 1 kHz loop on a robot whose feet
/// lift a few cm (Solo-12, ANYmal).
template <class S>
struct TouchdownSettings {
  S clearance = S(0.015);  ///< m: a lifted foot is in the air once higher than this
  S height = S(0.005);     ///< m: a foot in the air lands below this height...
  S speed = S(0.05);       ///< m/s: ...slower than this...
  int periods = 3;         ///< ...for this many updates in a row
};

/// The detector of the file comment for NumFeet feet; usable without init() (the default
/// thresholds). Fixed size, no heap; update() does the same work whatever the feet do.
template <class S, int NumFeet>
class ContactDetector {
 public:
  static_assert(NumFeet >= 1 && NumFeet <= 32, "talus::ContactDetector: 1 to 32 feet (a bit each)");
  using Heights = std::array<S, static_cast<std::size_t>(NumFeet)>;
  using Velocities = std::array<Vector3<S>, static_cast<std::size_t>(NumFeet)>;

  /// invalid_input for a threshold not finite or not > 0, periods < 1 or > 1000.
  Status init(const TouchdownSettings<S>& settings) {
    using std::isfinite;
    const S xs[] = {settings.clearance, settings.height, settings.speed};
    for (S x : xs)
      if (!(isfinite(x) && x > S(0))) return Status::invalid_input;
    if (!(settings.height < settings.clearance) || settings.periods < 1 || settings.periods > 1000)
      return Status::invalid_input;
    settings_ = settings;
    phase_.fill(Phase::stance);
    count_.fill(0);
    return Status::ok;
  }

  /// The feet touching this period (bit k: foot k), from the controller's stance (bit k: foot k
  /// held on the ground) and each foot's estimated height (m) and velocity (m/s, world).
  unsigned update(unsigned stance, const Heights& height, const Velocities& velocity) {
    unsigned touching = 0;
    for (int k = 0; k < NumFeet; ++k) {
      const std::size_t i = static_cast<std::size_t>(k);
      if (stance & (1u << k)) {
        phase_[i] = Phase::stance;
        touching |= 1u << k;
        continue;
      }
      const S h = height[i];
      const bool low_and_still = h < settings_.height && velocity[i].norm() < settings_.speed;  // NaN: false
      switch (phase_[i]) {
        case Phase::stance:  // just lifted
          phase_[i] = h > settings_.clearance ? Phase::air : Phase::leaving;
          count_[i] = 0;
          break;
        case Phase::leaving:
          if (h > settings_.clearance) phase_[i] = Phase::air;
          break;
        case Phase::air:
          count_[i] = low_and_still ? count_[i] + 1 : 0;
          if (count_[i] >= settings_.periods) phase_[i] = Phase::landed;
          break;
        case Phase::landed:
          if (h > settings_.clearance) {
            phase_[i] = Phase::air;
            count_[i] = 0;
          }
          break;
      }
      if (phase_[i] == Phase::landed) touching |= 1u << k;
    }
    return touching;
  }

 private:
  enum class Phase : std::uint8_t { stance, leaving, air, landed };
  TouchdownSettings<S> settings_{};
  std::array<Phase, static_cast<std::size_t>(NumFeet)> phase_{};
  std::array<int, static_cast<std::size_t>(NumFeet)> count_{};
};

}  // namespace talus
