# Functions that build the HIL rig's pieces in any build of talus (included by hil/CMakeLists.txt
# for the host build and by targets/ and targets/host for the Cortex-M7 build):
#   hil_add_firmware(<target> MODEL <model target> PORT <port target> [DEFINES ...])
#       the balance-controller firmware (hil/firmware/main.cpp) above talus/rt/port.hpp, for
#       solo12 (MODEL: a solo12 model) or, with DEFINES HIL_ROBOT_ANYMAL_C, anymal_c (MODEL: an
#       anymal_c_feet model, anymal.urdf with FRAMES LF_FOOT RF_FOOT LH_FOOT RH_FOOT); hil/robots
#   hil_add_harness(<target> MODELS <solo12 model target> <anymal_c_feet model target>)
#       the host harness with the MuJoCo plant (needs talus_mujoco), both robots (--robot)
include_guard(GLOBAL)

function(hil_add_firmware target)
  set(HIL_DIR ${CMAKE_CURRENT_FUNCTION_LIST_DIR})  # hil/, whichever directory included this file
  cmake_parse_arguments(arg "" "MODEL;PORT" "DEFINES" ${ARGN})
  add_executable(${target} ${HIL_DIR}/firmware/main.cpp)
  target_include_directories(${target} PRIVATE ${HIL_DIR}/firmware/include ${HIL_DIR}/protocol/include
                                               ${HIL_DIR}/robots/include)
  target_link_libraries(${target} PRIVATE talus::talus ${arg_MODEL} ${arg_PORT})
  target_compile_options(${target} PRIVATE ${TALUS_STRICT_FLAGS})
  target_compile_definitions(${target} PRIVATE ${arg_DEFINES})
endfunction()

function(hil_add_harness target)
  set(HIL_DIR ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  cmake_parse_arguments(arg "" "" "MODELS" ${ARGN})
  # The MuJoCo helpers of the tests (tests/support/mujoco_support): their library where the
  # tests built it, else compiled here.
  set(support "")
  if(NOT TARGET talus_mujoco_support)
    set(support ${TALUS_SOURCE_DIR_FOR_HIL}/tests/support/mujoco_support.cpp)
  endif()
  add_executable(${target} ${HIL_DIR}/host/harness.cpp ${HIL_DIR}/host/plant.cpp ${HIL_DIR}/host/sensors.cpp ${HIL_DIR}/host/firmware_link.cpp ${support})
  target_include_directories(${target} PRIVATE ${HIL_DIR}/protocol/include ${HIL_DIR}/robots/include
                                               ${TALUS_SOURCE_DIR_FOR_HIL}/tests)
  target_link_libraries(${target} PRIVATE talus::talus ${arg_MODELS} talus_mujoco)
  # --urdf's default: <models dir>/<the robot's URDF> (hil/robots)
  target_compile_definitions(${target} PRIVATE HIL_MODELS_DIR="${TALUS_MODELS_DIR}")
  if(TARGET talus_mujoco_support)
    target_link_libraries(${target} PRIVATE talus_mujoco_support)
  endif()
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
endfunction()
