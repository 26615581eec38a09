#pragma once
/// \file solvers/lcp_lemke.hpp
/// Deprecated include path, kept for one release: Lemke's LCP solver serves only contact and
/// lives in talus/contact/lcp_lemke.hpp. Include that header (or talus/contact.hpp) instead.
#include <talus/contact/lcp_lemke.hpp>
