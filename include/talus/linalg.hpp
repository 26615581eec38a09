#pragma once
/// \file linalg.hpp
/// The linear-algebra floor in one include (include/talus/linalg/): input bounds and finiteness
/// checks, argument size traits, the unblocked factorizations that never allocate (Householder
/// QR with and without column pivoting, partial-pivoting LU, Cholesky) and the solver
/// workspace. Depends on Eigen and nothing of talus above it.
#include <talus/linalg/cholesky.hpp>
#include <talus/linalg/finite.hpp>
#include <talus/linalg/householder.hpp>
#include <talus/linalg/kkt_workspace.hpp>
#include <talus/linalg/lu.hpp>
#include <talus/linalg/qr.hpp>
#include <talus/linalg/sizes.hpp>
#include <talus/linalg/triangular.hpp>
