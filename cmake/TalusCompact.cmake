# talus::compact: the compact build profile (targets/README.md, section "Compact profile"),
# for firmware where flash is tighter than cycles.
#
#   TALUS_COMPACT=1   TALUS_INLINE (include/talus/math/spatial.hpp) becomes a plain `inline`:
#                     the spatial-algebra operators are no longer forced inline into every
#                     unrolled body step, GCC's inliner decides (and keeps out-of-line copies
#                     where they are large)
#
# No -O flag: measured on the Cortex-M7 (bench/RESULTS.md, footprint section), TALUS_COMPACT
# at the preset's -O2 is the trade-off worth having (solo12 image with kinematics, CRBA, RNEA,
# ABA, Jacobians and a 4-contact solve: under a third of the fast profile's flash at about
# the same instructions per call); adding -Os saves a few kB more and costs several times
# the instructions. A consumer who wants that adds -Os to its own target.
#
# Results: the same algorithms and operations; only where GCC fuses a multiply-add (FMA
# targets) may differ, so results may differ in the last bits from the fast profile's (with
# talus::reproducible as well, no contraction at all). The default (fast) profile is
# unchanged: nothing here applies unless a consumer links talus::compact (or configures with
# TALUS_COMPACT=ON).
#
# Included by the top-level CMakeLists.txt. With TALUS_COMPACT=ON the talus target itself
# carries the profile (INTERFACE); otherwise a consumer opts in with
# target_link_libraries(app PRIVATE talus::compact).
add_library(talus_compact INTERFACE)
add_library(talus::compact ALIAS talus_compact)
set_target_properties(talus_compact PROPERTIES EXPORT_NAME compact)
target_compile_definitions(talus_compact INTERFACE TALUS_COMPACT=1)
install(TARGETS talus_compact EXPORT talusTargets)

if(TALUS_COMPACT)
  target_link_libraries(talus INTERFACE talus_compact)
  message(STATUS "talus: compact profile on (TALUS_INLINE not forced)")
endif()
