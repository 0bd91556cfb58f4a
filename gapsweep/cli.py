def main() -> int:
    from gapsweep.core import errors
    print(errors)
    return 0
