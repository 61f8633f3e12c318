import type { Config } from '../config.ts';
import type { Db } from '../storage/db.ts';
import { ApiClientService } from './api-clients.ts';
import { ApplicationService } from './applications/service.ts';
import { VersionService } from './applications/versions.ts';
import { CustomerService } from './customers.ts';
import { JobStore } from '../jobs/store.ts';
import { ProjectService, type DropApplicationData } from './projects.ts';
import { TokenService } from './tokens.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { GenerationService } from './applications/generation.ts';
import { DeploymentService } from './deployments.ts';
import type { DeploymentRegistry } from '../runtime/registry.ts';
import { FrontendBundleService } from './frontend-bundles.ts';
import { IntegrationPromptService, appUrlOf } from './integration-prompts.ts';
import { RunService } from './runs.ts';
import { createFileService, type FileService } from './storage.ts';
import { MonitoringService } from '../monitoring/service.ts';
import { ConfigurationService } from './configuration.ts';
import type { AppValuesCache } from '../secrets/app-values.ts';
import { AssistantService } from '../assistant/service.ts';
import { plannerFor } from '../assistant/planners/index.ts';
import { BuilderService } from './builders.ts';
import { AuditService } from '../access/audit.ts';
import { AttachmentService } from './attachments.ts';
import { SpecificationService } from './specifications.ts';
import { ExtractionSandbox } from '../specifications/sandbox.ts';
import { FigmaService } from './figma.ts';
import { DataImportService } from '../imports/service.ts';
import { BackupService } from '../backups/service.ts';
import { AdvisorService } from '../advisor/service.ts';
import { AppOrigins } from '../tools/app-origin.ts';

/** Every service of the control plane, built once per process over one Db. */
export interface Services {
  db: Db;
  config: Config;
  apiClients: ApiClientService;
  customers: CustomerService;
  tokens: TokenService;
  projects: ProjectService;
  applications: ApplicationService;
  versions: VersionService;
  jobs: JobStore;
  queue: JobQueue;
  generation: GenerationService;
  deployments: DeploymentService;
  frontendBundles: FrontendBundleService;
  integrationPrompts: IntegrationPromptService;
  runs: RunService;
  files: FileService;
  monitoring: MonitoringService;
  configuration: ConfigurationService;
  assistant: AssistantService;
  builders: BuilderService;
  audit: AuditService;
  attachments: AttachmentService;
  specifications: SpecificationService;
  figma: FigmaService;
  /** Rows of documents imported into published versions (src/imports/). */
  dataImports: DataImportService;
  /** Backups and restores of one application (backups/). */
  backups: BackupService;
  /** Explain, the access matrix and publish advice (advisor/). */
  advisor: AdvisorService;
  /** Each application's own origin (tools/app-origin.ts): the address the service gives for an app. */
  origins: AppOrigins;
}

export interface ServiceDependencies {
  masterKey: Buffer;
  dropApplicationData: DropApplicationData;
  jobs: JobStore;
  queue: JobQueue;
  registry: DeploymentRegistry;
  /** This process's cache of apps' variables and secrets (forgotten at once after a write here). */
  appValues?: AppValuesCache;
  /** The customers' files, when made before (the generated apps store their uploads there too). */
  files?: FileService;
  /** The platform's AppOrigins (reading the listening port); else one on the configured port. */
  origins?: AppOrigins;
}

export async function createServices(db: Db, config: Config, { masterKey, dropApplicationData, jobs, queue, registry, appValues, files, origins }: ServiceDependencies): Promise<Services> {
  const apiClients = new ApiClientService(db);
  const applications = new ApplicationService(db, jobs, queue, dropApplicationData);
  const monitoring = new MonitoringService(db, config, applications, masterKey);
  // Every Application answer carries each served version's health (DESIGN §19).
  applications.useDeploymentHealth((id) => monitoring.health(id));
  const configuration = new ConfigurationService(db, masterKey, appValues);
  const fileService = files ?? createFileService(db, config.storage, masterKey);
  // Attachments are stored through the storage layer (DESIGN §13, §12).
  const attachments = new AttachmentService(db, fileService);
  const dataImports = new DataImportService(db, applications, attachments, jobs, queue, registry);
  return {
    db,
    config,
    apiClients,
    customers: new CustomerService(db, apiClients),
    tokens: await TokenService.open(db, config.tokenTtlSeconds, { configuredSecret: config.tokenSecret, masterKey }),
    projects: new ProjectService(db, dropApplicationData),
    applications,
    versions: new VersionService(db, applications),
    jobs,
    queue,
    generation: new GenerationService(applications),
    deployments: new DeploymentService(db, applications, registry),
    frontendBundles: new FrontendBundleService(db, applications, {
      // A job queued without a request (none today) falls back to the configured public origin.
      defaultAppUrl: (id) => appUrlOf(config.publicUrl ?? `http://localhost:${config.port}`, config.appsPath, id),
    }),
    integrationPrompts: new IntegrationPromptService(db, applications),
    runs: new RunService(db, applications, appValues),
    files: fileService,
    monitoring,
    configuration,
    assistant: new AssistantService(db, applications, plannerFor(config.assistant, appValues), configuration),
    builders: new BuilderService(db),
    audit: new AuditService(db),
    attachments,
    specifications: new SpecificationService(db, attachments, applications, jobs, queue, new ExtractionSandbox(config.extraction)),
    figma: new FigmaService(db, attachments, configuration, jobs, queue),
    dataImports,
    backups: new BackupService(db, applications, fileService.driver, jobs, queue, registry, masterKey),
    advisor: new AdvisorService(db, applications, registry, masterKey, appValues),
    origins: origins ?? new AppOrigins(config, () => config.port),
  };
}

/**
 * Creates the first API client (a platform administrator) when the store is empty,
 * from APPBUILDER_BOOTSTRAP_CLIENT_ID / _SECRET. Answers what it did: `created`; `exists` when
 * the store is not empty and holds that client already (its secret is not changed); `ignored`
 * when the store is not empty and has no such client (the caller says so: logging in with it fails).
 */
export async function bootstrapFirstClient(services: Services): Promise<'none' | 'created' | 'exists' | 'ignored'> {
  const bootstrap = services.config.bootstrapClient;
  if (!bootstrap) return 'none';
  if (!(await services.customers.isEmpty())) {
    const found = await services.db.kysely.selectFrom('appbuilder.api_clients').select('id').where('api_key', '=', bootstrap.id).where('revoked_at', 'is', null).executeTakeFirst();
    return found ? 'exists' : 'ignored';
  }
  await services.customers.create('platform', { isPlatformAdmin: true, apiKey: bootstrap.id, secret: bootstrap.secret });
  return 'created';
}
