"""The solver core: planar multibody dynamics with clearance joints. numpy/scipy/numba only."""
