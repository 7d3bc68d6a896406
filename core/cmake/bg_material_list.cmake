# bg_material_list.cmake: the registry of material models, generated at
# configure time from the model headers themselves (as LAMMPS builds its
# style list from its headers). A model is registered by its header alone:
# a file under one of the scanned folders that holds one marker line
#
#   BG_MATERIAL(order, name, NAME, lane, "label")
#
# (inside a comment). order sorts the list and so fixes each model's number
# (checkpoints and the Python package store it): new models take a larger
# order than every existing one. name prefixes the model's functions and
# types, NAME makes BG_MODEL_<NAME>, lane is 1 when the header defines a
# lane update (bg_lane.h), label is the name users type.
#
# bg_generate_material_list(OUT <file> DIRS <dir>...) writes <file>: the
# #includes of the model headers and the X list BG_MATERIAL_LIST with the
# model enum. Headers under core/physics/materials are included as
# "materials/<file>" (so the installed copy finds them); others by absolute
# path (test fixtures). Sets BG_MATERIAL_LABELS in the caller's scope.

function(bg_generate_material_list)
  cmake_parse_arguments(G "" "OUT" "DIRS" ${ARGN})
  set(builtin ${PROJECT_SOURCE_DIR}/core/physics/materials)
  set(entries "")
  foreach(dir IN LISTS G_DIRS)
    file(GLOB headers CONFIGURE_DEPENDS ${dir}/*.h)
    # an edited marker re-runs the generation, as an added or removed header does
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${headers})
    foreach(h IN LISTS headers)
      file(STRINGS ${h} marks REGEX "BG_MATERIAL\\(")
      list(LENGTH marks n)
      if(n EQUAL 0)
        continue()
      elseif(NOT n EQUAL 1)
        message(FATAL_ERROR "${h}: ${n} BG_MATERIAL( markers; a model header holds exactly one")
      endif()
      set(re "BG_MATERIAL\\(([0-9]+), *([a-z][a-z0-9_]*), *([A-Z][A-Z0-9_]*), *([01]), *\"([a-z0-9-]+)\"\\)")
      if(NOT marks MATCHES "${re}")
        message(FATAL_ERROR "${h}: the marker must read BG_MATERIAL(order, name, NAME, lane 0|1, \"label\") "
                            "(got: ${marks})")
      endif()
      set(order ${CMAKE_MATCH_1})
      set(x "X(${CMAKE_MATCH_2}, ${CMAKE_MATCH_3}, ${CMAKE_MATCH_4}, \"${CMAKE_MATCH_5}\")")
      get_filename_component(hdir ${h} DIRECTORY)
      get_filename_component(hname ${h} NAME)
      if(hdir STREQUAL builtin)
        set(inc "materials/${hname}")
      else()
        set(inc "${h}")
      endif()
      # zero-padded so that the string sort is the numeric one
      string(LENGTH "${order}" len)
      while(len LESS 9)
        string(PREPEND order "0")
        math(EXPR len "${len} + 1")
      endwhile()
      list(APPEND entries "${order}|${CMAKE_MATCH_2}|${CMAKE_MATCH_5}|${x}|${inc}")
    endforeach()
  endforeach()
  if(NOT entries)
    message(FATAL_ERROR "no material model header (BG_MATERIAL marker) in ${G_DIRS}")
  endif()
  list(SORT entries)
  set(includes "")
  set(xs "")
  set(labels "")
  set(seen_order "")
  set(seen_name "")
  foreach(e IN LISTS entries)
    string(REPLACE "|" ";" f "${e}")
    list(GET f 0 order)
    list(GET f 1 name)
    list(GET f 2 label)
    list(GET f 3 x)
    list(GET f 4 inc)
    foreach(key order name label)
      if(${key} IN_LIST seen_${key})
        message(FATAL_ERROR "two material models share the ${key} ${${key}} (BG_MATERIAL markers in ${G_DIRS})")
      endif()
      list(APPEND seen_${key} ${${key}})
    endforeach()
    string(APPEND includes "#include \"${inc}\"\n")
    string(APPEND xs "  ${x} \\\n")
    list(APPEND labels ${label})
  endforeach()
  set(text "/* bg_material_list.h: GENERATED at configure time by core/cmake/bg_material_list.cmake
 * from the BG_MATERIAL markers of the model headers; do not edit. Adding a
 * model is its header alone (core/physics/materials/README.md).
 *
 * X(name, NAME, lane, \"label\"), in the markers' order (the model number):
 * name prefixes the model's functions and types, NAME makes BG_MODEL_<NAME>,
 * lane = 1 when the model has a lane update, label is the name users type.
 * bagnold.h includes this with BG_MAT_PARAMS_ONLY defined, which keeps the
 * headers to their parameter structs; bg_materials.h includes it again
 * without, for the models themselves (each header guards both parts). */
${includes}
#ifndef BG_MATERIAL_LIST_H
#define BG_MATERIAL_LIST_H

#define BG_MATERIAL_LIST(X) \\
${xs}
typedef enum bg_material_model {
#define BG_X_(n, N, lane, label) BG_MODEL_##N,
  BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
  BG_MODEL_COUNT
} bg_material_model;

#endif /* BG_MATERIAL_LIST_H */
")
  # rewritten only when it changes, so a re-configure rebuilds nothing
  set(tmp ${G_OUT}.tmp)
  file(WRITE ${tmp} "${text}")
  configure_file(${tmp} ${G_OUT} COPYONLY)
  set(BG_MATERIAL_LABELS ${labels} PARENT_SCOPE)
endfunction()
