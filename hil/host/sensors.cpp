// The sensors' model (sensors.hpp).
#include "sensors.hpp"

#include <cmath>

#include <talus/math/quaternion.hpp>

namespace talus_hil {

namespace {
Eigen::Matrix3d base_rotation(const PlantState& s) {
  return talus::quaternion_to_rotation<double>(s.q[3], s.q[4], s.q[5], s.q[6]);
}
}  // namespace

SensorModel::SensorModel(const SensorNoise& noise, std::uint64_t seed) : noise_(noise), rng_(seed) {
  for (int k = 0; k < 3; ++k) {
    gyro_bias_[k] = gauss(noise_.scale * noise_.gyro_bias0);
    accel_bias_[k] = gauss(noise_.scale * noise_.accel_bias0);
  }
}

void SensorModel::measure(const PlantState& now, const PlantState& before, double dt, Sensor& out) {
  const double k = noise_.scale, per_sample = 1 / std::sqrt(dt);
  for (int a = 0; a < 3; ++a) {
    gyro_bias_[a] += gauss(k * noise_.gyro_bias_walk * std::sqrt(dt));
    accel_bias_[a] += gauss(k * noise_.accel_bias_walk * std::sqrt(dt));
  }
  const Eigen::Matrix3d R_now = base_rotation(now), R_before = base_rotation(before);
  const Eigen::Vector3d v_now = R_now * now.v.segment<3>(3), v_before = R_before * before.v.segment<3>(3);
  const Eigen::Vector3d up(0, 0, 9.81);  // −g: the plant's gravity (MuJoCo's default)
  const Eigen::Vector3d specific_force = R_before.transpose() * ((v_now - v_before) / dt + up);
  for (int a = 0; a < 3; ++a) {
    out.gyro[static_cast<std::size_t>(a)] = now.v[a] + gyro_bias_[a] + gauss(k * noise_.gyro * per_sample);
    out.accel[static_cast<std::size_t>(a)] = specific_force[a] + accel_bias_[a] + gauss(k * noise_.accel * per_sample);
  }
  for (int j = 0; j < 12; ++j) {
    out.encoder[static_cast<std::size_t>(j)] =
        static_cast<std::int32_t>(std::llround(now.q[7 + j] / talus::hil::kEncoderStep));
    out.joint_rate[static_cast<std::size_t>(j)] = now.v[6 + j] + gauss(k * noise_.joint_rate);
  }
  out.contacts = switches ? now.contacts : 0;
  out.flags = switches ? talus::hil::sensor_has_switches : 0;
}

void SensorModel::step_biases(double gyro, double accel) {
  gyro_bias_ += Eigen::Vector3d::Constant(gyro);
  accel_bias_ += Eigen::Vector3d::Constant(accel);
}

}  // namespace talus_hil
