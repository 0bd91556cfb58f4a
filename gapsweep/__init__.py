"""gapsweep: clearance-joint parameter studies for planar mechanisms."""
