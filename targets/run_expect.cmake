# cmake -DCOMMAND=<cmd|arg|...> -DEXPECT_RC=<n> [-DEXPECT_REGEX=<regex>] -P run_expect.cmake
# Runs COMMAND ('|'-separated: trailing arguments of `cmake -P` would be parsed by cmake
# itself, e.g. qemu-aarch64's -L); passes if its exit code is EXPECT_RC and its output
# (stdout + stderr) matches EXPECT_REGEX. For tests whose success is a specific failure.
string(REPLACE "|" ";" cmd "${COMMAND}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}: ${cmd}")
endif()
if(DEFINED EXPECT_REGEX AND NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}'")
endif()
message("exit code ${rc} as expected")
