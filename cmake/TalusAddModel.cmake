# talus_add_model(<target> NAME <name> URDF <file> [FLOATING_BASE] [FRAMES <link>...] [GENERAL_PLACEMENTS]
#                 [COMPILED [CONSTRAINT_ROWS <rows>...] [SCALARS <type>...]])
#
# Generates, at build time, the header
#   ${CMAKE_CURRENT_BINARY_DIR}/talus_models/include/talus/models/<name>.hpp
# from <file> with talus_urdf_gen, and creates the INTERFACE library <target> that puts that
# include directory on the consumer's path and links talus::talus:
#
#   talus_add_model(solo12_model NAME solo12 URDF models/solo12.urdf FLOATING_BASE)
#   target_link_libraries(app PRIVATE solo12_model)   # then: #include <talus/models/solo12.hpp>
#
# <name> must be a C++ identifier: the header defines namespace talus::models::<name>.
# A relative URDF path is relative to CMAKE_CURRENT_SOURCE_DIR. FLOATING_BASE gives the root
# link a free-flyer joint; without it the root link is the world.
# FRAMES keeps only the listed URDF links as frames, in the order listed (frame 0 is the first
# name), instead of every link: num_frames and make_model's code shrink. A name that is not a
# link of the URDF (or a name listed twice) fails the build with the generator's message
# ("frame 'LF_FOTO' (--frame / FRAMES) is not a link of the URDF"). Bodies, joints and
# inertias do not depend on FRAMES.
# The generator classifies each joint placement (identity, axis permutation, rotation about one
# axis, general; zero, one-axis or general offset) and writes the kinds into the Body types, so
# the algorithms skip the placement's structural zeros and ones; entries within 1e-6 of 0/±1
# are snapped (the generator reports them). GENERAL_PLACEMENTS keeps every placement general,
# with the URDF's values unsnapped (talus_urdf_gen --general-placements).
#
# COMPILED makes <target> a static library that instantiates talus's algorithms (kinematics,
# CRBA, RNEA, ABA, Jacobians, centroidal quantities; include/talus/instances.hpp lists them) and
# make_model for the model, and, for each CONSTRAINT_ROWS capacity R, the constraint quantities
# and every constrained solver for talus::ConstraintSet<Model, R>; SCALARS (default double)
# says for which scalar types. Sources linking it compile declarations only (the model's header
# declares those instantiations extern), which takes a user's source from about a minute and
# 2 GB to seconds (bench/RESULTS.md, "Build weight"). The price is in the executable: it links
# whole units of the library, every instantiation in them whether called or not, so it is
# larger than the header-only build of the same source (the same section gives both sizes).
# Calls with the model's own vector types are covered; any other call, and the contact solvers
# (talus/contact.hpp), still compile where they are made. The library is compiled with the
# project's flags: build it and its users with the same optimisation and floating-point flags.
#
#   talus_add_model(anymal NAME anymal_c URDF anymal.urdf FLOATING_BASE COMPILED CONSTRAINT_ROWS 12)
#
# The generator is, in order of preference: the target talus_urdf_gen (talus built in this
# project), the imported target talus::talus_urdf_gen (installed talus package), or the
# executable TALUS_URDF_GEN_EXECUTABLE (cache variable, found on PATH by default).
# The installed generator is a host program: a cross build (e.g. -DCMAKE_TOOLCHAIN_FILE=
# <prefix>/share/talus/toolchains/cortex-m7.cmake) that finds the installed talus through
# CMAKE_PREFIX_PATH runs it as is; nothing else to pass.
include_guard(GLOBAL)

function(talus_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "FLOATING_BASE;COMPILED;GENERAL_PLACEMENTS" "NAME;URDF" "FRAMES;CONSTRAINT_ROWS;SCALARS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "talus_add_model(${target}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME)
    message(FATAL_ERROR "talus_add_model(${target}): NAME <name> is required")
  endif()
  if(NOT arg_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "talus_add_model(${target}): NAME '${arg_NAME}' is not a C++ identifier")
  endif()
  if((arg_CONSTRAINT_ROWS OR arg_SCALARS) AND NOT arg_COMPILED)
    message(FATAL_ERROR "talus_add_model(${target}): CONSTRAINT_ROWS and SCALARS go with COMPILED")
  endif()
  foreach(r IN LISTS arg_CONSTRAINT_ROWS)
    if(NOT r MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "talus_add_model(${target}): CONSTRAINT_ROWS '${r}' is not a positive integer")
    endif()
  endforeach()
  if(NOT arg_URDF)
    message(FATAL_ERROR "talus_add_model(${target}): URDF <file> is required")
  endif()
  if("FRAMES" IN_LIST arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "talus_add_model(${target}): FRAMES needs at least one URDF link name")
  endif()
  cmake_path(ABSOLUTE_PATH arg_URDF BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE urdf)
  if(NOT EXISTS "${urdf}")
    message(FATAL_ERROR "talus_add_model(${target}): URDF file '${urdf}' does not exist")
  endif()

  if(TARGET talus_urdf_gen)
    set(gen_command talus_urdf_gen)
    set(gen_depends "$<TARGET_FILE:talus_urdf_gen>")
  elseif(TARGET talus::talus_urdf_gen)
    # By path, not by target name: in a cross build CMake would otherwise prepend
    # CMAKE_CROSSCOMPILING_EMULATOR (or refuse), but the installed generator is a host tool.
    set(gen_command "$<TARGET_FILE:talus::talus_urdf_gen>")
    set(gen_depends "$<TARGET_FILE:talus::talus_urdf_gen>")
  else()
    find_program(TALUS_URDF_GEN_EXECUTABLE talus_urdf_gen DOC "talus URDF -> C++ model generator")
    if(NOT TALUS_URDF_GEN_EXECUTABLE)
      message(FATAL_ERROR "talus_add_model(${target}): no talus_urdf_gen: build talus with "
                          "TALUS_BUILD_GENERATOR=ON (needs urdfdom), or set TALUS_URDF_GEN_EXECUTABLE")
    endif()
    set(gen_command "${TALUS_URDF_GEN_EXECUTABLE}")
    set(gen_depends "${TALUS_URDF_GEN_EXECUTABLE}")
  endif()

  set(include_dir "${CMAKE_CURRENT_BINARY_DIR}/talus_models/include")
  set(header "${include_dir}/talus/models/${arg_NAME}.hpp")
  set(gen_flags "")
  if(arg_FLOATING_BASE)
    set(gen_flags --floating-base)
  endif()
  if(arg_GENERAL_PLACEMENTS)
    list(APPEND gen_flags --general-placements)
  endif()
  set(frame_flags "")
  foreach(f IN LISTS arg_FRAMES)
    list(APPEND frame_flags --frame "${f}")
  endforeach()
  file(MAKE_DIRECTORY "${include_dir}/talus/models")
  # The generator's arguments as a file the header depends on (rewritten only when they
  # change): a changed FRAMES list, FLOATING_BASE or GENERAL_PLACEMENTS regenerates the header.
  set(args_file "${CMAKE_CURRENT_BINARY_DIR}/talus_models/${arg_NAME}.args")
  file(CONFIGURE OUTPUT "${args_file}" CONTENT "${gen_flags};${arg_FRAMES}\n" @ONLY)

  add_custom_command(
    OUTPUT "${header}"
    COMMAND ${gen_command} --urdf "${urdf}" --name "${arg_NAME}" --out "${header}" ${gen_flags} ${frame_flags}
    DEPENDS "${urdf}" "${gen_depends}" "${args_file}"
    COMMENT "talus: generating talus/models/${arg_NAME}.hpp from ${urdf}"
    VERBATIM)
  add_custom_target(${target}_generate DEPENDS "${header}")

  if(NOT arg_COMPILED)
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE "$<BUILD_INTERFACE:${include_dir}>")
    target_link_libraries(${target} INTERFACE talus::talus)
    add_dependencies(${target} ${target}_generate)
    return()
  endif()

  # COMPILED: the instances header the model's header includes when the macro below is set,
  # and the sources instantiating them (per scalar: the algorithms; per capacity: two halves
  # of the constraint instances, so that they compile in parallel and in less memory).
  if(NOT arg_SCALARS)
    set(arg_SCALARS double)
  endif()
  set(ns "talus::models::${arg_NAME}")
  set(decls "")
  set(sources "${header}")
  set(src_dir "${CMAKE_CURRENT_BINARY_DIR}/talus_models/${arg_NAME}_instances")
  foreach(scalar IN LISTS arg_SCALARS)
    set(M "${ns}::Model<${scalar}>")
    string(APPEND decls "extern template ${M} ${ns}::make_model<${scalar}>();\nTALUS_DECLARE_MODEL_INSTANCES(${M})\n")
    set(prelude "// Generated by talus_add_model(${target} ... COMPILED) (cmake/TalusAddModel.cmake).\n#include <talus/instances.hpp>\n#include <talus/models/${arg_NAME}.hpp>\n")
    set(src "${src_dir}/${scalar}_algorithms.cpp")
    file(CONFIGURE OUTPUT "${src}" CONTENT "${prelude}template ${M} ${ns}::make_model<${scalar}>();\nTALUS_DEFINE_MODEL_INSTANCES(${M})\n")
    list(APPEND sources "${src}")
    foreach(rows IN LISTS arg_CONSTRAINT_ROWS)
      string(APPEND decls "TALUS_DECLARE_CONSTRAINT_INSTANCES(${M}, ${rows})\n")
      foreach(part 1 2)
        set(src "${src_dir}/${scalar}_rows${rows}_part${part}.cpp")
        file(CONFIGURE OUTPUT "${src}" CONTENT "${prelude}TALUS_DEFINE_CONSTRAINT_INSTANCES_PART${part}(${M}, ${rows})\n")
        list(APPEND sources "${src}")
      endforeach()
    endforeach()
  endforeach()
  file(CONFIGURE OUTPUT "${include_dir}/talus/models/${arg_NAME}_instances.hpp" CONTENT
       "#pragma once\n// Generated by talus_add_model(${target} ... COMPILED): what the library ${target} instantiates.\n#include <talus/instances.hpp>\n${decls}")
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${include_dir}>")
  target_link_libraries(${target} PUBLIC talus::talus)
  target_compile_definitions(${target} INTERFACE TALUS_MODEL_${arg_NAME}_COMPILED=1)
endfunction()
