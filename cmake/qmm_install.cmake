# cmake --install: header, both libraries, a CMake package (find_package(qmm)
# gives qmm::qmm, the shared library, and qmm::qmm_static) and pkg-config.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/qmm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS qmm_shared qmm_static EXPORT qmmTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(QMM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/qmm)
install(EXPORT qmmTargets NAMESPACE qmm:: DESTINATION ${QMM_CMAKE_DIR})
configure_package_config_file(cmake/qmmConfig.cmake.in
  ${PROJECT_BINARY_DIR}/qmmConfig.cmake INSTALL_DESTINATION ${QMM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/qmmConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/qmmConfig.cmake
  ${PROJECT_BINARY_DIR}/qmmConfigVersion.cmake DESTINATION ${QMM_CMAKE_DIR})

# The .pc file finds its prefix from its own location, so that the package
# works wherever --prefix puts it.
file(RELATIVE_PATH QMM_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(cmake/qmm.pc.in ${PROJECT_BINARY_DIR}/qmm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/qmm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
