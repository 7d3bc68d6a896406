# libbagnold.so for the Python package (ctypes), built in every configuration
# (the lab's, a plain library build, a wheel's) at <build>/lib/libbagnold.so,
# where the package's loader looks in a build tree. A static main library
# lends its objects, already position-independent, so nothing (the CUDA .cu
# included) is compiled twice; a shared one is copied there as it is.
#
# Installed: by cmake --install as <prefix>/<libdir>/bagnold/libbagnold.so
# (its own folder, so that -lbagnold still finds the static archive), where
# the package looks for an installed prefix; by a wheel build
# (scikit-build-core, SKBUILD set) into the package folder, component python.
set(BG_PY_LIBDIR ${PROJECT_BINARY_DIR}/lib)
set(BG_PY_LIBRARY ${BG_PY_LIBDIR}/libbagnold.so)
get_target_property(bg_type bagnold TYPE)
if(bg_type STREQUAL "STATIC_LIBRARY")
  add_library(bagnold_python SHARED $<TARGET_OBJECTS:bagnold>)
  # the main library's own link needs (libm, OpenMP, the static CUDA runtime)
  target_link_libraries(bagnold_python PRIVATE $<TARGET_PROPERTY:bagnold,INTERFACE_LINK_LIBRARIES>)
  set_target_properties(bagnold_python PROPERTIES OUTPUT_NAME bagnold LIBRARY_OUTPUT_DIRECTORY ${BG_PY_LIBDIR})
  if(BAGNOLD_HAVE_CUDA)
    set_target_properties(bagnold_python PROPERTIES LINKER_LANGUAGE CUDA)
  endif()
else()
  add_custom_target(bagnold_python ALL
    COMMAND ${CMAKE_COMMAND} -E make_directory ${BG_PY_LIBDIR}
    COMMAND ${CMAKE_COMMAND} -E copy_if_different $<TARGET_FILE:bagnold> ${BG_PY_LIBRARY}
    DEPENDS bagnold
    COMMENT "bagnold: libbagnold.so for Python")
endif()
if(SKBUILD)
  install(FILES ${BG_PY_LIBRARY} DESTINATION bagnold COMPONENT python
          PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
else()
  install(FILES ${BG_PY_LIBRARY} DESTINATION ${CMAKE_INSTALL_LIBDIR}/bagnold COMPONENT python
          PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endif()
