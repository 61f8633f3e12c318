import { Command, InvalidArgumentError } from 'commander';
import { registerClientCommands } from './commands.ts';

// Each command's module is imported when the command runs: `--help` (and a client command)
// never loads the server, the store or the job queue (test/cli/lazy-help.test.ts).

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) throw new InvalidArgumentError('a port is 0 to 65535');
  return parsed;
}

const program = new Command()
  .name('appbuilder')
  .description('Application builder service: definitions in, running backends out.');

program
  .command('serve')
  .description('Start the service (embedded store under ./.appbuilder unless DATABASE_URL is set)')
  .option('-p, --port <port>', 'port to listen on (default: PORT or 8080)', port)
  .option('--host <host>', 'address to listen on (default: HOST or 0.0.0.0)')
  .option('--role <role>', 'api | runtime | worker | all', 'all')
  .action(async (options) => (await import('./serve.ts')).serveCommand(options));

program
  .command('init')
  .description('Create a customer and an API client on the store, and print its credentials once')
  .option('--name <name>', 'customer name')
  .option('--admin', 'make the client a platform administrator (default when the store is empty)')
  .action(async (options) => (await import('./init.ts')).initCommand(options));

program
  .command('rotate-master-key')
  .description('Re-wrap every data key under a new master key in one transaction (stop the service first)')
  .option('--new-key-file <path>', 'a file holding the new key (32 bytes, base64); default with the embedded store: a new key file replaces the old')
  .action(async (options) => (await import('./rotate-master-key.ts')).rotateMasterKeyCommand(options));

registerClientCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`appbuilder: ${(error as Error).message}\n`);
  process.exit(1);
}
