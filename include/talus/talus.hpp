#pragma once
/// \file talus.hpp
/// Everything of talus's foundation in one include.
#include <talus/status.hpp>
#include <talus/math/spatial.hpp>
#include <talus/math/transform.hpp>
#include <talus/math/inertia.hpp>
#include <talus/math/quaternion.hpp>
#include <talus/math/rotation.hpp>
#include <talus/model/joints.hpp>
#include <talus/model/tree.hpp>
#include <talus/model/model.hpp>
#include <talus/model/data.hpp>
#include <talus/model/configuration.hpp>
#include <talus/model/check.hpp>
#include <talus/algorithms/kinematics.hpp>
#include <talus/algorithms/jacobians.hpp>
#include <talus/algorithms/rnea.hpp>
#include <talus/algorithms/crba.hpp>
#include <talus/algorithms/aba.hpp>
#include <talus/algorithms/sparse_factorization.hpp>
#include <talus/algorithms/centroidal.hpp>
