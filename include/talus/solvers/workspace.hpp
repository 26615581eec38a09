#pragma once
/// \file solvers/workspace.hpp
/// Deprecated include path, kept for one release: the solver workspace (SolverWorkspace,
/// KKTMethod) lives in talus/linalg/kkt_workspace.hpp and the unblocked factorizations in
/// talus/linalg/ (qr.hpp, lu.hpp, cholesky.hpp). Include those instead.
#include <talus/linalg/kkt_workspace.hpp>
