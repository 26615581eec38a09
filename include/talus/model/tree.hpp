#pragma once
/// \file tree.hpp
/// The kinematic tree as a type: `Tree<Body<Joint, Parent[, Rotation, Translation]>...>`.
/// Bodies are numbered 0..nb-1 in the order given; Parent is the index of the parent body
/// or -1 for the world, and must be smaller than the body's own index (topological order).
/// Everything here is constexpr, so loops over bodies unroll at compile time.
///
/// Rotation and Translation are the kinds of the body's joint placement X_T
/// (Model::joint_placement, math/placement.hpp): RotationGeneral (the default),
/// RotationIdentity, RotationPermutation<C0, C1, C2>, RotationAbout<A>; TranslationGeneral (the
/// default), TranslationZero, TranslationAlong<A>. What a kind fixes is structural: the entries
/// of R that are exactly 0 or ±1 (all of R for a permutation; row and column A for RotationAbout<A>),
/// and the zero components of p. Those are the type's; the others stay run-time data (the 2x2
/// block of a rotation about an axis, the offset along TranslationAlong<A>'s axis, every entry of
/// a general kind), so recalibrating them needs no recompile. check_model refuses a model whose
/// joint_placement does not fit its kinds.
#include <array>
#include <tuple>
#include <type_traits>
#include <utility>

#include <talus/math/placement.hpp>
#include <talus/model/joints.hpp>

namespace talus {

template <class JointType, int Parent, class RotationKind = RotationGeneral, class TranslationKind = TranslationGeneral>
struct Body {
  using Joint = JointType;
  static constexpr int parent = Parent;
  /// The pattern of the joint placement X_T (math/placement.hpp).
  using Placement = PlacementPattern<RotationKind, TranslationKind>;
};

template <int I>
using Index = std::integral_constant<int, I>;

/// std::array<T, N> with every element equal to `value` (Eigen types are not zeroed by `{}`).
template <class T, std::size_t N>
constexpr std::array<T, N> filled(const T& value) {
  std::array<T, N> a{};
  for (auto& x : a) x = value;
  return a;
}

namespace detail {
template <class F, int... I>
constexpr void static_for_impl(F& f, std::integer_sequence<int, I...>) {
  (f(Index<I>{}), ...);
}
template <class F, int N, int... I>
constexpr void static_for_reverse_impl(F& f, std::integer_sequence<int, I...>) {
  (f(Index<N - 1 - I>{}), ...);
}
}  // namespace detail

/// Calls `f(Index<I>{})` for I = 0 .. N-1 (forward pass), unrolled at compile time.
template <int N, class F>
constexpr void static_for(F&& f) {
  detail::static_for_impl(f, std::make_integer_sequence<int, N>{});
}
/// Calls `f(Index<I>{})` for I = N-1 .. 0 (backward pass), unrolled at compile time.
template <int N, class F>
constexpr void static_for_reverse(F&& f) {
  detail::static_for_reverse_impl<F, N>(f, std::make_integer_sequence<int, N>{});
}

template <class... Bodies>
struct Tree {
  static constexpr int nb = static_cast<int>(sizeof...(Bodies));
  static_assert(nb > 0, "a tree needs at least one body");

  static constexpr std::array<int, nb> parent{{Bodies::parent...}};
  static constexpr std::array<int, nb> joint_nq{{Bodies::Joint::nq...}};
  static constexpr std::array<int, nb> joint_nv{{Bodies::Joint::nv...}};

  template <int I>
  using Joint = std::tuple_element_t<I, std::tuple<typename Bodies::Joint...>>;
  /// The pattern of body I's joint placement X_T (Body's kinds).
  template <int I>
  using Placement = std::tuple_element_t<I, std::tuple<typename Bodies::Placement...>>;
  /// The pattern of λ(I)MI = X_T X_J(q) (LinkPattern, joints.hpp).
  template <int I>
  using Link = LinkPattern<Joint<I>, Placement<I>>;

 private:
  static constexpr std::array<int, nb> prefix(const std::array<int, nb>& n) {
    std::array<int, nb> r{};
    int acc = 0;
    for (int i = 0; i < nb; ++i) {
      r[i] = acc;
      acc += n[i];
    }
    return r;
  }
  static constexpr int sum(const std::array<int, nb>& n) {
    int acc = 0;
    for (int i = 0; i < nb; ++i) acc += n[i];
    return acc;
  }
  static constexpr bool topological() {
    for (int i = 0; i < nb; ++i)
      if (parent[i] < -1 || parent[i] >= i) return false;
    return true;
  }
  static_assert(topological(), "each body's parent must be -1 (world) or a smaller body index");

 public:
  static constexpr int nq = sum(joint_nq);
  static constexpr int nv = sum(joint_nv);
  static constexpr std::array<int, nb> idx_q = prefix(joint_nq);  ///< first q index of body i's joint
  static constexpr std::array<int, nb> idx_v = prefix(joint_nv);  ///< first v index of body i's joint

  /// Body that each velocity index moves.
  static constexpr std::array<int, nv> dof_body = [] {
    std::array<int, nv> r{};
    for (int i = 0; i < nb; ++i)
      for (int k = 0; k < joint_nv[i]; ++k) r[idx_v[i] + k] = i;
    return r;
  }();

  /// λ(k): parent of velocity index k in the expanded dof tree (previous dof of the same
  /// joint, else the last dof of the nearest ancestor with dofs, else -1). Sparsity pattern of H.
  static constexpr std::array<int, nv> dof_parent = [] {
    std::array<int, nv> r{};
    for (int i = 0; i < nb; ++i) {
      int p = parent[i];
      while (p >= 0 && joint_nv[p] == 0) p = parent[p];
      const int last_of_parent = p < 0 ? -1 : idx_v[p] + joint_nv[p] - 1;
      for (int k = 0; k < joint_nv[i]; ++k) r[idx_v[i] + k] = k == 0 ? last_of_parent : idx_v[i] + k - 1;
    }
    return r;
  }();

  /// True if body a is body b or one of its ancestors.
  static constexpr bool supports(int a, int b) {
    while (b >= 0) {
      if (a == b) return true;
      b = parent[b];
    }
    return false;
  }

  /// Number of bodies in the subtree rooted at body i (i included).
  static constexpr std::array<int, nb> subtree_size = [] {
    std::array<int, nb> r{};
    for (int i = nb - 1; i >= 0; --i) {
      r[i] += 1;
      if (parent[i] >= 0) r[parent[i]] += r[i];
    }
    return r;
  }();
};

/// Calls f(Index<A>{}) for every strict ancestor A of body I, nearest first.
template <class TreeT, int I, class F>
constexpr void for_each_ancestor(F&& f) {
  constexpr int P = TreeT::parent[I];
  if constexpr (P >= 0) {
    f(Index<P>{});
    for_each_ancestor<TreeT, P>(f);
  }
}

}  // namespace talus
