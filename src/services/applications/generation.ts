import { conflict } from '../../errors.ts';
import { generateModelsFromDomainModel } from '../../definition/generate.ts';
import type { JobRecord } from '../../jobs/store.ts';
import type { ApplicationService } from './service.ts';
import type { Application } from './view.ts';

/** `generation` jobs: build `models` from `domainModel` and save them as a new version. */
export class GenerationService {
  constructor(private readonly applications: ApplicationService) {}

  async request(customerId: string, applicationId: string): Promise<Application> {
    const application = await this.applications.get(customerId, applicationId);
    if (!application.scode.domainModel) {
      throw conflict('The application has no domainModel to generate models from.', [{ path: '/scode/domainModel', message: 'is null' }]);
    }
    await this.applications.submitJob(customerId, applicationId, 'generation', { fromVersion: application.serverVersion });
    return this.applications.get(customerId, applicationId);
  }

  /** The job handler: deterministic, so a retried attempt produces the same models. */
  async run(job: JobRecord): Promise<Record<string, unknown>> {
    const applicationId = String(job.metadata.applicationId ?? '');
    const updated = await this.applications.change(job.customerId, applicationId, (definition) => generateModelsFromDomainModel(definition));
    return { serverVersion: updated.serverVersion, models: updated.scode.models.map((m) => m.name) };
  }
}
