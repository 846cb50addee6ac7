# Warning flags for kueuesim's own targets (third-party headers are system
# headers and do not warn).
set(KUEUESIM_WARNING_FLAGS
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Wunused -Woverloaded-virtual -Wimplicit-fallthrough)
if(KUEUESIM_WERROR)
  list(APPEND KUEUESIM_WARNING_FLAGS -Werror)
endif()

set(KUEUESIM_SANITIZER_FLAGS "")
if(KUEUESIM_SANITIZE)
  foreach(san IN LISTS KUEUESIM_SANITIZE)
    list(APPEND KUEUESIM_SANITIZER_FLAGS -fsanitize=${san})
  endforeach()
  list(APPEND KUEUESIM_SANITIZER_FLAGS -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_compile_options(${KUEUESIM_SANITIZER_FLAGS})
  add_link_options(${KUEUESIM_SANITIZER_FLAGS})
endif()

function(kueuesim_apply_warnings target)
  target_compile_options(${target} PRIVATE ${KUEUESIM_WARNING_FLAGS})
endfunction()
