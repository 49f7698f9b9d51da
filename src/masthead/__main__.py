from masthead.cli import main

main()
