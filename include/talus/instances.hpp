#pragma once
/// \file instances.hpp
/// Explicit instantiation of talus's algorithms and constrained solvers for one model: the
/// list that a compiled model library (talus_add_model(... COMPILED), cmake/TalusAddModel.cmake)
/// instantiates once, and that every source using the model declares `extern`, so that a
/// firmware or test source compiles declarations only and links the model library's code.
///
///   TALUS_DECLARE_MODEL_INSTANCES(M)             extern template declarations (in headers)
///   TALUS_DEFINE_MODEL_INSTANCES(M)              explicit instantiations (in one .cpp)
///   TALUS_DECLARE_CONSTRAINT_INSTANCES(M, R)     the same for ConstraintSet<M, R> (R rows,
///   TALUS_DEFINE_CONSTRAINT_INSTANCES(M, R)      R constraints) and every solver taking it
///
/// M is a complete model type, e.g. talus::models::solo12::Model<double>; use the macros at
/// global scope. Which calls are covered: the ones a program makes with the model's own vector
/// types, i.e. q a `M::ConfigVector`, v, q̇, q̈, τ and outputs `M::TangentVector`, Jacobians
/// `Eigen::Matrix<S, 6, nv>` (frame) / `Eigen::Matrix<S, 3, nv>` (point, CoM, linear), constraint
/// vectors `ConstraintSet::RowVector`. A call with other argument types (an Eigen::Map, a
/// block, a dynamic-size matrix) compiles as before, by implicit instantiation in the caller:
/// correct, only not faster to build. Functions not listed (frame_placement, the LTL solves,
/// configuration helpers) are small and stay in the caller.
#include <talus/constraints.hpp>
#include <talus/talus.hpp>

#define TALUS_INSTANCES_MODEL_(T, M)                                                                                   \
  namespace talus {                                                                                                    \
  T Status check_model(const M&);                                                                                      \
  T Status forward_kinematics(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&);                          \
  T Status forward_kinematics(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&,                           \
                              const Eigen::MatrixBase<M::TangentVector>&);                                             \
  T Status forward_kinematics(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&,                           \
                              const Eigen::MatrixBase<M::TangentVector>&, const Eigen::MatrixBase<M::TangentVector>&); \
  T Status crba(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&);                                        \
  T Status rnea(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&,                                         \
                const Eigen::MatrixBase<M::TangentVector>&, const Eigen::MatrixBase<M::TangentVector>&,                \
                M::TangentVector&);                                                                                    \
  T Status rnea(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&,                                         \
                const Eigen::MatrixBase<M::TangentVector>&, const Eigen::MatrixBase<M::TangentVector>&,                \
                const ExternalForces<M>&, M::TangentVector&);                                                          \
  T Status nonlinear_effects(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&,                            \
                             const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&);                           \
  T Status generalized_gravity(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&, M::TangentVector&);      \
  T Status aba(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&,                                          \
               const Eigen::MatrixBase<M::TangentVector>&, const Eigen::MatrixBase<M::TangentVector>&,                 \
               M::TangentVector&);                                                                                     \
  T Status aba(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&,                                          \
               const Eigen::MatrixBase<M::TangentVector>&, const Eigen::MatrixBase<M::TangentVector>&,                 \
               const ExternalForces<M>&, M::TangentVector&);                                                           \
  T Status compute_joint_jacobians(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&);                     \
  T Status frame_jacobian(const M&, const Data<M>&, int, ReferenceFrame, M::Jacobian6&);                               \
  T Status frame_jacobian(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&, int, ReferenceFrame,          \
                          M::Jacobian6&);                                                                              \
  T Status point_jacobian(const M&, const Data<M>&, int, const Vector3<M::Scalar>&, ReferenceFrame, M::Jacobian3&);    \
  T Status point_jacobian(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&, int,                          \
                          const Vector3<M::Scalar>&, ReferenceFrame, M::Jacobian3&);                                   \
  T Status frame_linear_jacobian(const M&, const Data<M>&, int, ReferenceFrame, M::Jacobian3&);                        \
  T Status center_of_mass(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&);                              \
  T Status center_of_mass(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&,                               \
                          const Eigen::MatrixBase<M::TangentVector>&);                                                 \
  T Status com_jacobian(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&, M::Jacobian3&);                 \
  T Status centroidal_momentum_matrix(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&, M::Jacobian6&);   \
  T Status centroidal_momentum(const M&, Data<M>&, const Eigen::MatrixBase<M::ConfigVector>&,                          \
                               const Eigen::MatrixBase<M::TangentVector>&, Force<M::Scalar>&);                         \
  }

#define TALUS_INSTANCES_CONSTRAINTS_(T, M, R)                                                                         \
  namespace talus {                                                                                                   \
  T Status compute_constraint_jacobian(const M&, Data<M>&, ConstraintSet<M, R>&,                                      \
                                       const Eigen::MatrixBase<M::ConfigVector>&);                                    \
  T Status compute_constraint_gamma(const M&, Data<M>&, ConstraintSet<M, R>&,                                         \
                                    const Eigen::MatrixBase<M::ConfigVector>&,                                        \
                                    const Eigen::MatrixBase<M::TangentVector>&);                                      \
  T Status compute_position_errors(const M&, Data<M>&, ConstraintSet<M, R>&,                                          \
                                   const Eigen::MatrixBase<M::ConfigVector>&, ConstraintSet<M, R>::RowVector&);       \
  T Status compute_velocity_errors(const M&, Data<M>&, ConstraintSet<M, R>&,                                          \
                                   const Eigen::MatrixBase<M::ConfigVector>&,                                         \
                                   const Eigen::MatrixBase<M::TangentVector>&, ConstraintSet<M, R>::RowVector&);      \
  T Status compute_constrained_system(const M&, Data<M>&, ConstraintSet<M, R>&,                                       \
                                      const Eigen::MatrixBase<M::ConfigVector>&,                                      \
                                      const Eigen::MatrixBase<M::TangentVector>&, const ExternalForces<M>*);          \
  T Status anchor_contacts(const M&, Data<M>&, ConstraintSet<M, R>&, const Eigen::MatrixBase<M::ConfigVector>&, int); \
  T Status forward_dynamics_direct(const M&, Data<M>&, ConstraintSet<M, R>&,                                          \
                                   const Eigen::MatrixBase<M::ConfigVector>&,                                         \
                                   const Eigen::MatrixBase<M::TangentVector>&,                                        \
                                   const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&, KKTMethod,          \
                                   const ExternalForces<M>*);                                                         \
  T Status forward_dynamics_range_space(const M&, Data<M>&, ConstraintSet<M, R>&,                                     \
                                        const Eigen::MatrixBase<M::ConfigVector>&,                                    \
                                        const Eigen::MatrixBase<M::TangentVector>&,                                   \
                                        const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&,                \
                                        const ExternalForces<M>*);                                                    \
  T Status forward_dynamics_null_space(const M&, Data<M>&, ConstraintSet<M, R>&,                                      \
                                       const Eigen::MatrixBase<M::ConfigVector>&,                                     \
                                       const Eigen::MatrixBase<M::TangentVector>&,                                    \
                                       const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&,                 \
                                       const ExternalForces<M>*);                                                     \
  }

#define TALUS_INSTANCES_SOLVERS_(T, M, R)                                                                              \
  namespace talus {                                                                                                    \
  T Status forward_dynamics_kokkevis(const M&, Data<M>&, ConstraintSet<M, R>&,                                         \
                                     const Eigen::MatrixBase<M::ConfigVector>&,                                        \
                                     const Eigen::MatrixBase<M::TangentVector>&,                                       \
                                     const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&,                    \
                                     const ExternalForces<M>*);                                                        \
  T Status forward_dynamics_articulated(const M&, Data<M>&, ConstraintSet<M, R>&,                                      \
                                        const Eigen::MatrixBase<M::ConfigVector>&,                                     \
                                        const Eigen::MatrixBase<M::TangentVector>&,                                    \
                                        const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&,                 \
                                        const ExternalForces<M>*);                                                     \
  T Status compute_impulse_articulated(const M&, Data<M>&, ConstraintSet<M, R>&,                                       \
                                       const Eigen::MatrixBase<M::ConfigVector>&,                                      \
                                       const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&,                  \
                                       const ConstraintSet<M, R>::RowVector*);                                         \
  T Status forward_dynamics_proximal(const M&, Data<M>&, ConstraintSet<M, R>&,                                         \
                                     const Eigen::MatrixBase<M::ConfigVector>&,                                        \
                                     const Eigen::MatrixBase<M::TangentVector>&,                                       \
                                     const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&,                    \
                                     const ProximalSettings<M::Scalar>&, ProximalReport<M::Scalar>&,                   \
                                     const ExternalForces<M>*);                                                        \
  T Status compute_impulse_direct(const M&, Data<M>&, ConstraintSet<M, R>&, const Eigen::MatrixBase<M::ConfigVector>&, \
                                  const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&, KKTMethod,            \
                                  const ConstraintSet<M, R>::RowVector*);                                              \
  T Status compute_impulse_range_space(const M&, Data<M>&, ConstraintSet<M, R>&,                                       \
                                       const Eigen::MatrixBase<M::ConfigVector>&,                                      \
                                       const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&,                  \
                                       const ConstraintSet<M, R>::RowVector*);                                         \
  T Status compute_impulse_null_space(const M&, Data<M>&, ConstraintSet<M, R>&,                                        \
                                      const Eigen::MatrixBase<M::ConfigVector>&,                                       \
                                      const Eigen::MatrixBase<M::TangentVector>&, M::TangentVector&,                   \
                                      const ConstraintSet<M, R>::RowVector*);                                          \
  T Status inverse_dynamics_constrained(const M&, Data<M>&, ConstraintSet<M, R>&,                                      \
                                        const Eigen::MatrixBase<M::ConfigVector>&,                                     \
                                        const Eigen::MatrixBase<M::TangentVector>&,                                    \
                                        const Eigen::MatrixBase<M::TangentVector>&, const Actuation<M>&,               \
                                        M::TangentVector&, M::TangentVector&,                                          \
                                        InverseDynamicsWorkspace<M::Scalar, M::nv, R>&, const ExternalForces<M>*);     \
  T Status static_equilibrium_torques(const M&, Data<M>&, ConstraintSet<M, R>&,                                        \
                                      const Eigen::MatrixBase<M::ConfigVector>&, const Actuation<M>&,                  \
                                      M::TangentVector&, InverseDynamicsWorkspace<M::Scalar, M::nv, R>&);              \
  }

#define TALUS_DECLARE_MODEL_INSTANCES(M) TALUS_INSTANCES_MODEL_(extern template, M)
#define TALUS_DEFINE_MODEL_INSTANCES(M) TALUS_INSTANCES_MODEL_(template, M)
#define TALUS_DECLARE_CONSTRAINT_INSTANCES(M, R) \
  TALUS_INSTANCES_CONSTRAINTS_(extern template, M, R) TALUS_INSTANCES_SOLVERS_(extern template, M, R)
#define TALUS_DEFINE_CONSTRAINT_INSTANCES(M, R) \
  TALUS_INSTANCES_CONSTRAINTS_(template, M, R) TALUS_INSTANCES_SOLVERS_(template, M, R)
// The same in two halves, for two translation units that compile in parallel (the compiled
// model library does this): constraint quantities and the direct, range- and null-space
// solvers; then Kokkevis, articulated, proximal, the impulses and constrained inverse dynamics.
#define TALUS_DEFINE_CONSTRAINT_INSTANCES_PART1(M, R) TALUS_INSTANCES_CONSTRAINTS_(template, M, R)
#define TALUS_DEFINE_CONSTRAINT_INSTANCES_PART2(M, R) TALUS_INSTANCES_SOLVERS_(template, M, R)
