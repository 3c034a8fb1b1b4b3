// The schemaRegistry section of a keiyaku configuration and its KEIYAKU_SCHEMA_REGISTRY_* variables.
import { ConfigurationError, configure, createSchemaRegistry, describeConfig, resolveConfig } from '@keiyaku/runtime/config';
import { describe, expect, it } from 'vitest';

describe('schemaRegistry in the configuration', () => {
  it('reads the section: URL, basic auth or token, autoRegister and the subject name strategy', () => {
    const resolved = resolveConfig({
      schemaRegistry: {
        url: 'http://registry:8081',
        username: 'svc',
        password: 'secret',
        autoRegister: 'true',
        subjectNameStrategy: 'record',
      },
    });
    expect(resolved.schemaRegistry).toEqual({
      url: 'http://registry:8081',
      auth: { username: 'svc', password: 'secret' },
      autoRegister: true,
      subjectNameStrategy: 'record',
    });
    expect(JSON.stringify(describeConfig(resolved))).not.toContain('secret"');
    const setup = createSchemaRegistry(resolved);
    expect(setup).toMatchObject({ autoRegister: true, subjectNameStrategy: 'record' });
    expect(setup?.client.url).toBe('http://registry:8081');
    expect(createSchemaRegistry(resolveConfig({}))).toBeUndefined();
  });

  it('reads the environment', async () => {
    const parts = await configure(undefined, {
      env: { KEIYAKU_SCHEMA_REGISTRY_URL: 'http://registry:8080/apis/ccompat/v7', KEIYAKU_SCHEMA_REGISTRY_TOKEN: 't0k3n' },
    });
    expect(parts.schemaRegistry?.client.url).toBe('http://registry:8080/apis/ccompat/v7');
    expect(parts.schemaRegistry).toMatchObject({ autoRegister: false, subjectNameStrategy: 'topic' });
    expect((await configure(undefined, { env: {} })).schemaRegistry).toBeUndefined();
  });

  it('lists every problem of the section, named by key or variable', () => {
    const problems = (config: unknown, env?: Record<string, string>) => {
      try {
        resolveConfig(config, env === undefined ? {} : { env });
      } catch (error) {
        if (error instanceof ConfigurationError) return error.problems.map((p) => `${p.key}: ${p.message}`);
        throw error;
      }
      return [];
    };
    expect(problems({ schemaRegistry: { username: 'svc' } })).toEqual([
      'schemaRegistry.url: is required (the registry base URL, e.g. http://registry:8081)',
      'schemaRegistry.password: is required with the other of username/password',
    ]);
    expect(problems({ schemaRegistry: { url: 'registry:8081', token: 't', username: 'u', password: 'p', autoRegister: 'maybe' } })).toEqual(
      [
        'schemaRegistry.autoRegister: must be true or false, got "maybe"',
        'schemaRegistry.url: must be an http(s) URL, got "registry:8081"',
        'schemaRegistry.token: use either it or schemaRegistry.username/password, not both',
      ],
    );
    expect(problems(undefined, { KEIYAKU_SCHEMA_REGISTRY_URL: 'http://r', KEIYAKU_SCHEMA_REGISTRY_SUBJECT_NAME_STRATEGY: 'x' })).toEqual([
      expect.stringMatching(/^KEIYAKU_SCHEMA_REGISTRY_SUBJECT_NAME_STRATEGY: /),
    ]);
  });
});
