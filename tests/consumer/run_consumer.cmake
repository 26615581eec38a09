# The install_consumer test: installs talus from TALUS_SOURCE into a scratch prefix, then
#   1. configures a parent project that adds talus with add_subdirectory (configure only:
#      ports and generator targets there, no talus tests/bench/fuzz);
#   2. builds the host consumer against the prefix (find_package, talus_add_model with the
#      installed generator, talus::port_posix) and runs `consumer` (ur5 ABA) and `contact`
#      (ANYmal C on four feet with friction in the loop runner: the example of README.md and
#      docs/contact.md);
#   3. cross-compiles `contact` for a Cortex-M7 with the installed toolchain file
#      (talus::port_cortex_m, and talus::compact as firmware would: GCC's inliner decides, which
#      also keeps this cross build within the test's time budget), runs it on
#      QEMU mps2-an500 with the installed runner, and checks that its image links no malloc;
#   4. the same for bare-metal 32-bit x86 (talus::port_x86, the installed i686 toolchain file and
#      qemu-x86.sh runner).
# Any failing step fails the test. Needs arm-none-eabi-g++, qemu-system-arm, i686-linux-gnu-g++ and qemu-system-i386
# (tools/setup-debian.sh installs them).
#   cmake -DTALUS_SOURCE=<talus> -DWORK=<scratch dir> -DMODELS=<models> [-DJOBS=2] -P run_consumer.cmake
if(NOT DEFINED JOBS)
  set(JOBS 2)
endif()
foreach(tool arm-none-eabi-g++ arm-none-eabi-nm qemu-system-arm i686-linux-gnu-g++ i686-linux-gnu-nm qemu-system-i386)
  find_program(have_${tool} ${tool})
  if(NOT have_${tool})
    message(FATAL_ERROR "install_consumer: ${tool} not found: the Cortex-M7 and x86 consumers need it "
                        "(apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib "
                        "qemu-system-arm g++-i686-linux-gnu qemu-system-x86, or bash tools/setup-debian.sh)")
  endif()
endforeach()

# The examples of README.md ("## Use talus in your project") and docs/contact.md ("## Example")
# are excerpts of contact.cpp: in the first ```cpp block after each heading, every line but the
# "// ..." elisions must be a whole line of contact.cpp.
file(READ ${TALUS_SOURCE}/tests/consumer/contact.cpp example)
string(REPLACE ";" "<semicolon>" example "${example}")  # ; [ ] are list syntax to CMake
string(REPLACE "[" "<lbracket>" example "${example}")
string(REPLACE "]" "<rbracket>" example "${example}")
function(check_excerpt document heading)
  file(READ ${TALUS_SOURCE}/${document} text)
  string(FIND "${text}" "\n${heading}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "install_consumer: ${document} has no section '${heading}'")
  endif()
  string(SUBSTRING "${text}" ${at} -1 text)
  string(FIND "${text}" "\n```cpp\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "install_consumer: ${document}, section '${heading}', has no ```cpp block")
  endif()
  math(EXPR at "${at} + 8")
  string(SUBSTRING "${text}" ${at} -1 text)
  string(FIND "${text}" "\n```" at)
  string(SUBSTRING "${text}" 0 ${at} excerpt)
  string(REPLACE ";" "<semicolon>" excerpt "${excerpt}")
  string(REPLACE "[" "<lbracket>" excerpt "${excerpt}")
  string(REPLACE "]" "<rbracket>" excerpt "${excerpt}")
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
      message(FATAL_ERROR "install_consumer: ${document}'s example line is not in tests/consumer/contact.cpp:\n${line}")
    endif()
    math(EXPR checked "${checked} + 1")
  endforeach()
  message(STATUS "install_consumer: ${document} example: ${checked} lines, all in contact.cpp")
endfunction()
check_excerpt(README.md "## Use talus in your project")
check_excerpt(docs/contact.md "## Example")

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
# its host generator. 20 periods of the 1 ms loop under QEMU, -icount shift=1 (deterministic
# time, 2 ns per instruction: about a 500 MHz Cortex-M7 at one instruction per cycle; the
# runner's default, 8 ns, would make the contact solve overrun the 1 ms period).
run(${CMAKE_COMMAND} -S ${TALUS_SOURCE}/tests/consumer -B ${WORK}/consumer-m7 ${release}
    -DCMAKE_TOOLCHAIN_FILE=${prefix}/share/talus/toolchains/cortex-m7.cmake
    -DCMAKE_PREFIX_PATH=${prefix} -DMODELS=${MODELS} -DEXAMPLE_PERIODS=20)
run(${CMAKE_COMMAND} --build ${WORK}/consumer-m7 -j${JOBS})
run(${CMAKE_COMMAND} -E env TALUS_QEMU_ICOUNT=1
    ${prefix}/share/talus/toolchains/qemu-mps2.sh mps2-an500 ${WORK}/consumer-m7/contact)
# Printing numbers (talus/rt/log.hpp) needs no heap: the image links no malloc (printf's %f would).
run(${CMAKE_COMMAND} -DNM=arm-none-eabi-nm -DOBJECTS=${WORK}/consumer-m7/CMakeFiles/contact.dir/contact.cpp.obj
    -DIMAGE=${WORK}/consumer-m7/contact -P ${TALUS_SOURCE}/targets/check_no_heap.cmake)

# 4. Bare-metal x86 consumer (talus::port_x86): the installed i686 toolchain file, the image
# booted by qemu-system-i386 through the installed runner, -icount shift=1 as on the M7 above;
# the image links no malloc either.
run(${CMAKE_COMMAND} -S ${TALUS_SOURCE}/tests/consumer -B ${WORK}/consumer-x86 ${release}
    -DCMAKE_TOOLCHAIN_FILE=${prefix}/share/talus/toolchains/i686-baremetal.cmake
    -DCMAKE_PREFIX_PATH=${prefix} -DMODELS=${MODELS} -DEXAMPLE_PERIODS=20)
run(${CMAKE_COMMAND} --build ${WORK}/consumer-x86 -j${JOBS})
run(${CMAKE_COMMAND} -E env TALUS_QEMU_ICOUNT=1 ${prefix}/share/talus/toolchains/qemu-x86.sh ${WORK}/consumer-x86/contact)
run(${CMAKE_COMMAND} -DNM=i686-linux-gnu-nm -DOBJECTS=${WORK}/consumer-x86/CMakeFiles/contact.dir/contact.cpp.obj
    -DIMAGE=${WORK}/consumer-x86/contact -P ${TALUS_SOURCE}/targets/check_no_heap.cmake)

string(TIMESTAMP t_end "%s")
math(EXPR dt "${t_end} - ${t_start}")
message(STATUS "install_consumer: passed in ${dt} s")
