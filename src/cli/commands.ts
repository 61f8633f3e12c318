import type { Command } from 'commander';

/**
 * Runs `pick(module)` of a module imported only when the command runs (so `--help` loads
 * none of them), failing as `action` in output.ts does: the problem on stderr, exit code 1.
 */
function lazy<M, A extends unknown[]>(load: () => Promise<M>, pick: (module: M) => (...args: A) => Promise<void>) {
  return async (...args: A): Promise<void> => {
    const [module, { action }] = await Promise.all([load(), import('./output.ts')]);
    await action(pick(module))(...args);
  };
}

const JSON_HELP = 'machine output (JSON) only on stdout';

/** The commands that talk to a running service through the SDK (credentials: login or APPBUILDER_*). */
export function registerClientCommands(program: Command): void {
  program
    .command('login')
    .description('Check an API client\'s credentials and save them (XDG config dir, mode 0600)')
    .option('--url <url>', 'the service, e.g. http://localhost:8080 (default: APPBUILDER_URL)')
    .option('--client-id <key>', 'the API key (default: APPBUILDER_CLIENT_ID)')
    .option('--client-secret <secret>', 'the secret (default: APPBUILDER_CLIENT_SECRET)')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./login.ts'), (m) => m.loginCommand));

  program
    .command('apply')
    .description('Create the application of a definition file, or update the one with its scode.appId in the project')
    .requiredOption('-f, --file <file>', 'the definition: {name, scode} or the bare scode')
    .option('--project <project>', 'project name or id (created when no project has the name)', 'default')
    .option('--publish', 'publish the new version')
    .option('--wait', 'with --publish: wait until the version is served')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./apply.ts'), (m) => m.applyCommand));

  program
    .command('publish <app>')
    .description('Serve the current (or --version) version of an application (id, appId or name)')
    .option('--version <version>', 'the serverVersion to publish')
    .option('--wait', 'wait until the version is served')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./publish.ts'), (m) => m.publishCommand));

  program
    .command('unpublish <app>')
    .description('Stop serving every version of an application, or --version')
    .option('--version <version>', 'the serverVersion to stop serving')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./unpublish.ts'), (m) => m.unpublishCommand));

  program
    .command('status <app>')
    .description('The application\'s version, served versions and latest jobs')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./status.ts'), (m) => m.statusCommand));

  program
    .command('bundle <app>')
    .description('Download the frontend bundle (zip) of the latest published version, waiting for its build')
    .requiredOption('-o, --output <file>', 'where to write the zip')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./bundle.ts'), (m) => m.bundleCommand));

  program
    .command('runs <app>')
    .description('The latest runs of the application\'s actions')
    .option('--follow', 'keep printing new runs until interrupted')
    .option('--limit <n>', 'how many runs (default 20)')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./runs.ts'), (m) => m.runsCommand));

  program
    .command('explain <app> [request...]')
    .description('Run a request as an end user (--as USER_ID) or anonymous, rolled back, and say what each rule decided: explain APP --as ID -- GET /toDos/ID')
    .option('--as <user>', 'the end user\'s id, or anonymous')
    .option('--body <json>', 'the request body: JSON, or @file')
    .option('--version <version>', 'a published version (default: the one published last)')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./advisor.ts'), (m) => m.explainCommand));

  program
    .command('access <app>')
    .description('Who may create, read, update and delete each model (anonymous, signed in, owner, admin), and the advice')
    .option('--version <version>', 'the serverVersion (default: the current one)')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./advisor.ts'), (m) => m.accessCommand));

  program
    .command('open <app>')
    .description('Print where the served versions answer: API, docs, OpenAPI and the frontend bundle')
    .option('--json', JSON_HELP)
    .action(lazy(() => import('./open.ts'), (m) => m.openCommand));
}
