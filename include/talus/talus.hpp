#pragma once
/// \file talus.hpp
/// Everything of talus's foundation in one include: status.hpp and the folders math/, model/
/// and algorithms/ (spatial algebra, models, kinematics, Jacobians, RNEA, CRBA, ABA,
/// centroidal quantities). The other layers have their own aggregates: linalg.hpp,
/// constraints.hpp, solvers.hpp, contact.hpp, estimation.hpp.
#include <talus/status.hpp>
#include <talus/math/inertia.hpp>
#include <talus/math/placement.hpp>
#include <talus/math/quaternion.hpp>
#include <talus/math/rotation.hpp>
#include <talus/math/sincos.hpp>
#include <talus/math/spatial.hpp>
#include <talus/math/transform.hpp>
#include <talus/model/check.hpp>
#include <talus/model/configuration.hpp>
#include <talus/model/data.hpp>
#include <talus/model/joints.hpp>
#include <talus/model/model.hpp>
#include <talus/model/tree.hpp>
#include <talus/algorithms/aba.hpp>
#include <talus/algorithms/centroidal.hpp>
#include <talus/algorithms/crba.hpp>
#include <talus/algorithms/jacobians.hpp>
#include <talus/algorithms/kinematics.hpp>
#include <talus/algorithms/rnea.hpp>
#include <talus/algorithms/sparse_factorization.hpp>
#include <talus/algorithms/system_kinematics.hpp>
