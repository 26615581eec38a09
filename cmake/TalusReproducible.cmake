# talus::reproducible: the reproducible floating-point profile (targets/README.md, section
# "Reproducible profile"). Code built with it gives bit-identical results on x86-64, aarch64
# and Cortex-M7 (double), checked by the target_<name>_bits tests.
#
#   -ffp-contract=off      no fused multiply-add contraction (GCC contracts by default where
#                          the ISA has FMA: aarch64, Cortex-M7 FPv5, x86-64 with -mfma/-march)
#   EIGEN_DONT_VECTORIZE   no explicit SIMD in Eigen (SSE2 on x86-64, NEON on aarch64 reorder
#                          sums); also sets Eigen's static alignment to 0, which changes the
#                          layout of fixed-size Eigen members: every translation unit of a
#                          program that shares talus or Eigen objects must use the profile
#   TALUS_REPRODUCIBLE=1   lets code check that it is in effect
# sin/cos: talus's own talus::sincos (double) on every target, nothing to set.
#
# Included by the top-level CMakeLists.txt. With TALUS_REPRODUCIBLE=ON the talus target
# itself carries the profile (INTERFACE, so every consumer gets it, also after install);
# otherwise a consumer opts in with target_link_libraries(app PRIVATE talus::reproducible).
add_library(talus_reproducible INTERFACE)
add_library(talus::reproducible ALIAS talus_reproducible)
set_target_properties(talus_reproducible PROPERTIES EXPORT_NAME reproducible)
target_compile_options(talus_reproducible INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang,AppleClang>:-ffp-contract=off>)
target_compile_definitions(talus_reproducible INTERFACE EIGEN_DONT_VECTORIZE TALUS_REPRODUCIBLE=1)
install(TARGETS talus_reproducible EXPORT talusTargets)

if(TALUS_REPRODUCIBLE)
  target_link_libraries(talus INTERFACE talus_reproducible)
  # Flags that undo the profile whatever comes after them: value-changing optimizations
  # (reassociation, reciprocal approximations, flush-to-zero start-up code), and x86 FMA
  # (-march=native on an FMA machine, -mfma): GCC 12's SLP vectorizer was seen emitting
  # vfmaddsub despite -ffp-contract=off (targets/README.md). Only CMAKE_CXX_FLAGS can be
  # checked here; per-target options are the consumer's responsibility.
  string(TOUPPER "${CMAKE_BUILD_TYPE}" _talus_bt)
  set(_talus_flags "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_talus_bt}}")
  foreach(_talus_bad -ffast-math -Ofast -funsafe-math-optimizations -fassociative-math -freciprocal-math
                     -march=native -mfma)
    string(FIND " ${_talus_flags} " " ${_talus_bad} " _talus_at)
    if(NOT _talus_at EQUAL -1)
      message(FATAL_ERROR "TALUS_REPRODUCIBLE=ON contradicts ${_talus_bad} in CMAKE_CXX_FLAGS: results may not be bit-identical across targets (targets/README.md)")
    endif()
  endforeach()
  message(STATUS "talus: reproducible floating-point profile on (-ffp-contract=off, EIGEN_DONT_VECTORIZE)")
endif()
