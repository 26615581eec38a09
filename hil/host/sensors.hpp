#pragma once
// What the robot's sensors report from the plant's truth (host only): joint encoders quantised
// to hil::kEncoderStep, joint rates with the drive's noise, an IMU at the base frame's origin
// (gyroscope and accelerometer with white noise and random-walk biases), and contact switches.
// The truth itself never reaches the firmware: the harness logs it to the CSV.
//
// IMU model (per 1 ms sample k, B axes, noise densities σ continuous, discrete σ/√dt):
//   gyro_k  = ω_B(t_k) + b_g + n_g                 (the rate at the end of the period)
//   accel_k = R(t_{k−1})ᵀ ((v_W(t_k) − v_W(t_{k−1})) / dt − g) + b_a + n_a
// the specific force averaged over the period (what an IMU's delta-velocity gives), in the
// axes the period started with; the biases start at a random offset and walk.
#include <cstdint>
#include <random>

#include <hil/protocol.hpp>

#include "plant.hpp"

namespace talus_hil {

using Sensor = talus::hil::SensorMessage<12>;

/// Defaults: a Bosch BMI088 (datasheet BST-BMI088-DS001: gyroscope 0.014 °/s/√Hz, accelerometer
/// 175 µg/√Hz), its zero-rate offset and zero-g offset drawn once (σ below: a calibrated part,
/// well inside the datasheet's ±1 °/s and ±20 mg), the bias walks the estimator assumes, and a
/// drive's velocity estimate of σ 0.02 rad/s.
struct SensorNoise {
  double gyro = 2.44e-4;          ///< rad/s/√Hz
  double accel = 1.72e-3;         ///< m/s²/√Hz
  double gyro_bias_walk = 1e-5;   ///< rad/s²/√Hz
  double accel_bias_walk = 1e-4;  ///< m/s³/√Hz
  double gyro_bias0 = 2e-3;       ///< rad/s, σ of the starting gyroscope bias per axis
  double accel_bias0 = 2e-2;      ///< m/s², σ of the starting accelerometer bias per axis
  double joint_rate = 0.02;       ///< rad/s per sample
  double scale = 1;               ///< every noise and bias above × scale (the envelope's 2×)
};

class SensorModel {
 public:
  SensorModel(const SensorNoise& noise, std::uint64_t seed);
  /// The sensor frame's measurements (encoder, joint_rate, gyro, accel, contacts, flags) for
  /// the plant state `now`, `before` being the state one period dt (s) earlier (at rest at the
  /// first frame: pass now twice).
  void measure(const PlantState& now, const PlantState& before, double dt, Sensor& out);
  /// A step in the IMU's biases (the robustness envelope's bias step: a knock, a temperature
  /// jump): gyro (rad/s) and accel (m/s²) added to every axis's bias from the next sample on.
  void step_biases(double gyro, double accel);
  /// Whether the frame carries the feet's contact switches (`--switches no`: a robot without
  /// them; the firmware then detects the contacts itself).
  bool switches = true;

 private:
  double gauss(double sigma) { return sigma * normal_(rng_); }
  SensorNoise noise_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_{0.0, 1.0};
  Eigen::Vector3d gyro_bias_, accel_bias_;
};

}  // namespace talus_hil
