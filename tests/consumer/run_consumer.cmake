# The install_consumer test: installs talus from TALUS_SOURCE into a scratch prefix, then
#   1. configures a parent project that adds talus with add_subdirectory (configure only:
#      ports and generator targets there, no talus tests/bench/fuzz);
#   2. builds the host consumer against the prefix (find_package, talus_add_model with the
#      installed generator, talus::port_posix) and runs `consumer` (ur5 ABA) and `contact`
#      (ANYmal C on four feet in the loop runner, the README example);
#   3. cross-compiles `contact` for a Cortex-M7 with the installed toolchain file
#      (talus::port_cortex_m) and runs it on QEMU mps2-an500 with the installed runner.
# Any failing step fails the test. Needs arm-none-eabi-g++ and qemu-system-arm
# (tools/setup-debian.sh installs them).
#   cmake -DTALUS_SOURCE=<talus> -DWORK=<scratch dir> -DMODELS=<models> [-DJOBS=2] -P run_consumer.cmake
if(NOT DEFINED JOBS)
  set(JOBS 2)
endif()
foreach(tool arm-none-eabi-g++ qemu-system-arm)
  find_program(have_${tool} ${tool})
  if(NOT have_${tool})
    message(FATAL_ERROR "install_consumer: ${tool} not found: the Cortex-M7 consumer needs it "
                        "(apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib "
                        "qemu-system-arm, or bash tools/setup-debian.sh)")
  endif()
endforeach()

# README.md's example ("## Use talus in your project", its ```cpp block) is an excerpt of
# contact.cpp: every line of it but the "// ..." elisions must be a line of contact.cpp.
file(READ ${TALUS_SOURCE}/README.md readme)
file(READ ${TALUS_SOURCE}/tests/consumer/contact.cpp example)
string(FIND "${readme}" "\n## Use talus in your project" at)
if(at EQUAL -1)
  message(FATAL_ERROR "install_consumer: README.md has no section '## Use talus in your project'")
endif()
string(SUBSTRING "${readme}" ${at} -1 readme)
string(FIND "${readme}" "\n```cpp\n" at)
math(EXPR at "${at} + 8")
string(SUBSTRING "${readme}" ${at} -1 readme)
string(FIND "${readme}" "\n```" at)
string(SUBSTRING "${readme}" 0 ${at} excerpt)
foreach(var excerpt example)  # ; [ ] are list syntax to CMake
  string(REPLACE ";" "<semicolon>" ${var} "${${var}}")
  string(REPLACE "[" "<lbracket>" ${var} "${${var}}")
  string(REPLACE "]" "<rbracket>" ${var} "${${var}}")
endforeach()
string(REPLACE "\n" ";" lines "${excerpt}")
set(checked 0)
foreach(line IN LISTS lines)
  string(STRIP "${line}" stripped)
  if(stripped STREQUAL "" OR stripped MATCHES "^// \\.\\.\\.")
    continue()
  endif()
  string(FIND "\n${example}" "\n${line}\n" found)
  if(found EQUAL -1)
    string(REPLACE "<semicolon>" ";" line "${line}")
    string(REPLACE "<lbracket>" "[" line "${line}")
    string(REPLACE "<rbracket>" "]" line "${line}")
    message(FATAL_ERROR "install_consumer: README.md's example line is not in tests/consumer/contact.cpp:\n${line}")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()
message(STATUS "install_consumer: README example: ${checked} lines, all in contact.cpp")

file(REMOVE_RECURSE ${WORK})
string(TIMESTAMP t_start "%s")
function(run)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  string(TIMESTAMP t1 "%s")
  math(EXPR dt "${t1} - ${t0}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: failed (${rc}) after ${dt} s: ${ARGV}")
  endif()
  message(STATUS "install_consumer: ${dt} s: ${ARGV}")
endfunction()
set(prefix ${WORK}/prefix)
set(release -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")

# talus, installed (what a firmware project does once; tests and bench off).
run(${CMAKE_COMMAND} -S ${TALUS_SOURCE} -B ${WORK}/talus-build ${release}
    -DTALUS_BUILD_TESTS=OFF -DTALUS_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX=${prefix})
run(${CMAKE_COMMAND} --build ${WORK}/talus-build -j${JOBS})
run(${CMAKE_COMMAND} --install ${WORK}/talus-build)

# 1. add_subdirectory(talus) from a parent project.
run(${CMAKE_COMMAND} -S ${TALUS_SOURCE}/tests/consumer/subproject -B ${WORK}/subproject-build
    -DTALUS_SOURCE=${TALUS_SOURCE})

# 2. Host consumer.
run(${CMAKE_COMMAND} -S ${TALUS_SOURCE}/tests/consumer -B ${WORK}/consumer-build ${release}
    -DCMAKE_PREFIX_PATH=${prefix} -DMODELS=${MODELS})
run(${CMAKE_COMMAND} --build ${WORK}/consumer-build -j${JOBS})
run(${WORK}/consumer-build/consumer)
run(${WORK}/consumer-build/contact)

# 3. Cortex-M7 consumer: the installed toolchain file; find_package finds the same prefix and
# its host generator. 20 periods of the 1 ms loop under QEMU (-icount: deterministic time).
run(${CMAKE_COMMAND} -S ${TALUS_SOURCE}/tests/consumer -B ${WORK}/consumer-m7 ${release}
    -DCMAKE_TOOLCHAIN_FILE=${prefix}/share/talus/toolchains/cortex-m7.cmake
    -DCMAKE_PREFIX_PATH=${prefix} -DMODELS=${MODELS} -DEXAMPLE_PERIODS=20)
run(${CMAKE_COMMAND} --build ${WORK}/consumer-m7 -j${JOBS})
run(${prefix}/share/talus/toolchains/qemu-mps2.sh mps2-an500 ${WORK}/consumer-m7/contact)

string(TIMESTAMP t_end "%s")
math(EXPR dt "${t_end} - ${t_start}")
message(STATUS "install_consumer: passed in ${dt} s")
