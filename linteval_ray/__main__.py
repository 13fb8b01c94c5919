from linteval_ray.cli import main

raise SystemExit(main())
