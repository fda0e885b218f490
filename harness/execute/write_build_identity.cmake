# Writes the build identity the `capaboost` program is compiled with (execute/build_identity.h): the
# source commit, whether the tree had uncommitted changes, and a SHA-256 of those changes, read from git
# at build time, so a binary names the source it was compiled from rather than whatever the checkout
# holds when it runs. Run at every build by the target capaboost_build_identity_values
# (harness/CMakeLists.txt); the output is rewritten only when its content changes, so an unchanged
# tree recompiles nothing.
#
#   cmake -DSOURCE_DIR=<checkout> -DOUTPUT=<file.cpp> -DCOMPILER=<id version> -DBUILD_TYPE=<type> -P write_build_identity.cmake

foreach(required SOURCE_DIR OUTPUT COMPILER BUILD_TYPE)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "write_build_identity.cmake: -D${required}=... is required")
  endif()
endforeach()

set(git git --no-optional-locks -C "${SOURCE_DIR}")
execute_process(COMMAND ${git} rev-parse HEAD OUTPUT_VARIABLE commit RESULT_VARIABLE in_git
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(dirty false)
set(diff_sha256 "")
if(NOT in_git EQUAL 0)
  # A source tarball: nothing to name but that it is not a commit.
  set(commit unknown)
else()
  # Tracked changes against the commit (staged or not), then every untracked file git does not ignore,
  # by name and content: both are part of what a build compiles.
  execute_process(COMMAND ${git} diff HEAD --binary OUTPUT_VARIABLE changes ERROR_QUIET)
  execute_process(COMMAND ${git} ls-files --others --exclude-standard OUTPUT_VARIABLE untracked
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(untracked)
    string(REPLACE "\n" ";" untracked "${untracked}")
    foreach(path IN LISTS untracked)
      if(EXISTS "${SOURCE_DIR}/${path}" AND NOT IS_DIRECTORY "${SOURCE_DIR}/${path}")
        file(SHA256 "${SOURCE_DIR}/${path}" content)
        string(APPEND changes "untracked ${path} ${content}\n")
      endif()
    endforeach()
  endif()
  if(NOT changes STREQUAL "")
    set(dirty true)
    string(SHA256 diff_sha256 "${changes}")
  endif()
endif()

# String literals: the values come from git and CMake, never from a user's spec, but escape anyway.
foreach(name commit COMPILER BUILD_TYPE)
  string(REPLACE "\\" "\\\\" ${name} "${${name}}")
  string(REPLACE "\"" "\\\"" ${name} "${${name}}")
endforeach()

file(WRITE "${OUTPUT}.tmp"
"// Written by harness/execute/write_build_identity.cmake at build time; do not edit.
namespace capaboost::harness::generated {
extern const char* const kBuildCommit;
extern const bool kBuildDirty;
extern const char* const kBuildDiffSha256;
extern const char* const kBuildCompiler;
extern const char* const kBuildType;
const char* const kBuildCommit = \"${commit}\";
const bool kBuildDirty = ${dirty};
const char* const kBuildDiffSha256 = \"${diff_sha256}\";
const char* const kBuildCompiler = \"${COMPILER}\";
const char* const kBuildType = \"${BUILD_TYPE}\";
}  // namespace capaboost::harness::generated
")
configure_file("${OUTPUT}.tmp" "${OUTPUT}" COPYONLY)
file(REMOVE "${OUTPUT}.tmp")
