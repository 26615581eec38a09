# The API reference (issue 11): Doxygen HTML from the headers' doc comments.
#
# Included from the top-level CMakeLists.txt: defines the `docs` target when doxygen is found
# (apt-get install doxygen; tools/setup-debian.sh installs it) and TALUS_BUILD_DOCS is on
# (the default when talus is the top-level project).
#   cmake --build <build> --target docs   ->  <build>/docs/html/index.html
# Settings: docs/Doxyfile.in; main page: docs/mainpage.md. Doxygen's warnings go to
# <build>/docs/doxygen-warnings.log.
#
# Run as a script (cmake -DTALUS_BUILD_DIR=<build> -DTALUS_DOCS_WARN_LOG=<log> -P this file):
# builds the docs target and fails, printing the log, if Doxygen warned. This is the ctest
# docs_no_warnings (tests/CMakeLists.txt, label build).

if(CMAKE_SCRIPT_MODE_FILE)
  # --- script mode: the docs_no_warnings check ---------------------------------------------
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${TALUS_BUILD_DIR} --target docs
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "docs_no_warnings: building the docs target failed (${rc}):\n${out}")
  endif()
  if(out MATCHES "warning: ")  # configuration warnings go to stderr, not to the log
    message(FATAL_ERROR "docs_no_warnings: Doxygen warned while building the docs target:\n${out}")
  endif()
  if(NOT EXISTS ${TALUS_DOCS_WARN_LOG})
    message(FATAL_ERROR "docs_no_warnings: no warning log at ${TALUS_DOCS_WARN_LOG}")
  endif()
  file(READ ${TALUS_DOCS_WARN_LOG} log)
  string(STRIP "${log}" log)
  if(NOT log STREQUAL "")
    string(REGEX MATCHALL "warning:" hits "${log}")
    list(LENGTH hits n)
    message(FATAL_ERROR "docs_no_warnings: Doxygen reported ${n} warning(s) "
      "(fix the doc comments; log: ${TALUS_DOCS_WARN_LOG}):\n${log}")
  endif()
  message(STATUS "docs_no_warnings: no Doxygen warnings")
else()
  # --- configure mode: the docs target -----------------------------------------------------
  # Only when talus is the top-level project by default: under add_subdirectory(talus) the
  # enclosing project may have its own `docs` target.
  option(TALUS_BUILD_DOCS "Add the docs target (Doxygen API reference) if doxygen is found" ${PROJECT_IS_TOP_LEVEL})
  if(TALUS_BUILD_DOCS AND NOT TARGET docs)
    find_package(Doxygen QUIET)
  endif()
  if(TALUS_BUILD_DOCS AND NOT TARGET docs AND DOXYGEN_FOUND)
    set(TALUS_DOCS_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/docs)
    set(TALUS_DOCS_WARN_LOG ${TALUS_DOCS_OUTPUT_DIR}/doxygen-warnings.log)
    configure_file(${CMAKE_CURRENT_LIST_DIR}/../docs/Doxyfile.in ${TALUS_DOCS_OUTPUT_DIR}/Doxyfile @ONLY)
    # The old html/ and log are removed first: no pages of deleted headers, no stale warnings.
    add_custom_target(docs
      COMMAND ${CMAKE_COMMAND} -E rm -rf ${TALUS_DOCS_OUTPUT_DIR}/html ${TALUS_DOCS_WARN_LOG}
      COMMAND ${DOXYGEN_EXECUTABLE} ${TALUS_DOCS_OUTPUT_DIR}/Doxyfile
      WORKING_DIRECTORY ${TALUS_DOCS_OUTPUT_DIR}
      COMMENT "Doxygen: API reference in ${TALUS_DOCS_OUTPUT_DIR}/html (warnings: ${TALUS_DOCS_WARN_LOG})"
      VERBATIM)
    set(TALUS_DOCS_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_FILE})  # for the ctest docs_no_warnings
  endif()
endif()
