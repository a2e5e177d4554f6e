from pybridge.cli import main

main()
