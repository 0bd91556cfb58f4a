"""Flexible bodies: the gradient-deficient ANCF beam."""
