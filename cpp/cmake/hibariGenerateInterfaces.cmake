# hibari_generate_interfaces(<target> <package folder>... [DISTRO <distro>])
#
# Generates C++ types for your own ROS 2 interface packages and makes
# <target> an INTERFACE library that carries them:
#
#   hibari_generate_interfaces(my_interfaces ${CMAKE_CURRENT_SOURCE_DIR}/my_msgs)
#   target_link_libraries(app PRIVATE my_interfaces)   # #include <my_msgs/msg/num.hpp>
#
# Each folder is one package, named after it, holding msg/*.msg, srv/*.srv
# and action/*.action (a ROS source package's layout). Their dependencies
# resolve against the bundled packages of DISTRO (default: the distro hibari
# was installed with) and against the other folders given. The headers are
# regenerated when a definition changes; the generator rewrites only the
# files whose text changed.
#
# At run time hibari needs the definitions too (for type hashes and for
# tools): run the program with HIBARI_INTERFACE_PATH listing the folders'
# parents, or the folders themselves; the target's property
# HIBARI_INTERFACE_PATH holds that list, for tests and launch scripts.
function(hibari_generate_interfaces target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DISTRO" "")
  if(NOT arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hibari_generate_interfaces(${target}): name at least one package folder")
  endif()
  if(NOT arg_DISTRO)
    set(arg_DISTRO "${hibari_DISTRO}")
  endif()
  if(NOT HIBARI_CPP_GEN)
    message(FATAL_ERROR "hibari_generate_interfaces: HIBARI_CPP_GEN is not set; call find_package(hibari) first")
  endif()
  set(folders "")
  set(definitions "")
  foreach(folder IN LISTS arg_UNPARSED_ARGUMENTS)
    get_filename_component(folder "${folder}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT IS_DIRECTORY "${folder}")
      message(FATAL_ERROR "hibari_generate_interfaces(${target}): ${folder} is not a folder")
    endif()
    file(GLOB_RECURSE found CONFIGURE_DEPENDS
      "${folder}/msg/*.msg" "${folder}/srv/*.srv" "${folder}/action/*.action")
    if(NOT found)
      message(FATAL_ERROR "hibari_generate_interfaces(${target}): ${folder} holds no msg/, srv/ or action/ definitions")
    endif()
    list(APPEND folders "${folder}")
    list(APPEND definitions ${found})
  endforeach()

  set(out "${CMAKE_CURRENT_BINARY_DIR}/hibari_interfaces/${target}")
  set(stamp "${out}.stamp")
  add_custom_command(OUTPUT "${stamp}"
    COMMAND "${HIBARI_CPP_GEN}" --distro "${arg_DISTRO}" --out "${out}" ${folders}
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS ${definitions} "${HIBARI_CPP_GEN}"
    COMMENT "hibari-cpp-gen: C++ types of ${folders}"
    VERBATIM)
  add_custom_target(${target}_generate DEPENDS "${stamp}")
  if(TARGET hibari_cargo)
    add_dependencies(${target}_generate hibari_cargo)
  endif()

  add_library(${target} INTERFACE)
  target_include_directories(${target} INTERFACE "${out}")
  target_link_libraries(${target} INTERFACE hibari::hibari)
  add_dependencies(${target} ${target}_generate)
  string(REPLACE ";" ":" search_path "${folders}")
  set_property(TARGET ${target} PROPERTY HIBARI_INTERFACE_PATH "${search_path}")
endfunction()
