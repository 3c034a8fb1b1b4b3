// The dependency rules of the repository (docs/architecture.md), checked by `npm run lint` and CI:
// no cycles, layers that import one way only, and packages that reach each other through their
// public entries only.
/** Folders of the transport and store packages under runtime/. */
const ADAPTERS = '(kafka|iggy|sqlite|postgres|mysql|avro|protobuf)';
/** Files a package's users may import: @keiyaku/runtime's entries (the root and one folder per subpath) and each adapter package's. */
const RUNTIME_ENTRIES = '^runtime/(index|(codegen-v1|memory|testing|ops|config|adapter|registry)/index)[.]ts$';
const ADAPTER_ENTRIES = `^runtime/${ADAPTERS}/(index|codegen-v1)[.]ts$`;

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A module must not depend on itself through others (type-only imports included).',
      from: { path: '^(generator|runtime)/' },
      to: { circular: true },
    },
    {
      name: 'runtime-core-imports-only-core',
      severity: 'error',
      comment: 'runtime/core is the bottom layer: it imports nothing else of the runtime.',
      from: { path: '^runtime/core/' },
      to: { path: '^runtime/', pathNot: '^runtime/core/' },
    },
    {
      name: 'belt-below-the-host',
      severity: 'error',
      comment:
        'The belt (runtime/belt/) builds on the core, the dead-letter store and the inbox interface; the host, publisher, event relay, outbox and ops sit above it.',
      from: { path: '^runtime/belt/' },
      to: {
        path: '^runtime/',
        pathNot: ['^runtime/core/', '^runtime/belt/', '^runtime/stores/dead-letter/', '^runtime/inbox/inbox[.]ts$'],
      },
    },
    {
      name: 'codegen-facade-only-re-exports-core',
      severity: 'error',
      comment: 'The versioned facades re-export the contract core; generated code depends on their names only.',
      from: { path: '^runtime/codegen-v1/' },
      to: { pathNot: '^runtime/core/' },
    },
    {
      name: 'publish-imports-only-core',
      severity: 'error',
      comment: 'core → publish: the publisher builds on the core alone and knows no belt, host, store or transport.',
      from: { path: '^runtime/publish/' },
      to: { path: '^runtime/', pathNot: '^runtime/(core|publish)/' },
    },
    {
      name: 'registry-imports-only-core',
      comment:
        'The Schema Registry wire format (runtime/registry/) sits beside the publisher and the belt: it builds on the core alone, and reaches them only through the channel hooks of the core.',
      severity: 'error',
      from: { path: '^runtime/registry/' },
      to: { path: '^runtime/', pathNot: '^runtime/(core|registry)/' },
    },
    {
      name: 'memory-transport-imports-only-core',
      severity: 'error',
      comment:
        "The memory transport implements the core's transport interface and imports nothing else of the runtime, as a transport package does.",
      from: { path: '^runtime/memory/' },
      to: { path: '^runtime/', pathNot: '^runtime/(core|memory)/' },
    },
    {
      name: 'host-over-publish-belt-and-stores',
      severity: 'error',
      comment:
        'publish, belt, outbox and stores → host, one way: only the host, what reads a host (ops, the conformance suites) and the package root import runtime/host.',
      from: { path: '^runtime/', pathNot: [`^runtime/${ADAPTERS}/`, '^runtime/(host|ops|testing)/', '^runtime/index[.]ts$'] },
      to: { path: '^runtime/host/' },
    },
    {
      name: 'runtime-knows-no-adapter-package',
      severity: 'error',
      comment: '@keiyaku/runtime depends on no transport or store package (configure() loads them by name, at run time).',
      from: { path: '^runtime/', pathNot: `^runtime/${ADAPTERS}/` },
      to: { path: `^runtime/${ADAPTERS}/` },
    },
    {
      name: 'ops-is-an-add-on-over-the-host',
      severity: 'error',
      comment:
        'host → ops, one way: the operations server reads the host, and nothing else of the runtime imports it (the metric catalogue it renders lives in core).',
      from: { path: '^runtime/', pathNot: [`^runtime/${ADAPTERS}/`, '^runtime/ops/'] },
      to: { path: '^runtime/ops/' },
    },
    {
      name: 'runtime-knows-no-generator',
      severity: 'error',
      from: { path: '^runtime/' },
      to: { path: '^generator/' },
    },
    {
      name: 'adapter-packages-use-public-runtime-entries',
      severity: 'error',
      comment: 'A transport or store package imports @keiyaku/runtime through its entries (./adapter mostly), never a file inside it.',
      from: { path: `^runtime/${ADAPTERS}/` },
      to: { path: '^runtime/', pathNot: [`^runtime/$1/`, RUNTIME_ENTRIES] },
    },
    {
      name: 'generator-reaches-runtime-only-from-cli-through-entries',
      severity: 'error',
      comment: 'load, model, emit and compat depend on no runtime code; the CLI (and the deprecated re-exports) use public entries only.',
      from: { path: '^generator/' },
      to: { path: '^runtime/', pathNot: [RUNTIME_ENTRIES, ADAPTER_ENTRIES] },
    },
    {
      name: 'generator-core-without-runtime',
      severity: 'error',
      from: { path: '^generator/', pathNot: '^generator/(cli|deprecated)/' },
      to: { path: '^runtime/' },
    },
    {
      name: 'generator-load-is-the-bottom',
      severity: 'error',
      comment: 'load reads and checks documents; it knows nothing of the model, emit, compat or the CLI.',
      from: { path: '^generator/load/' },
      to: { path: '^generator/(model|emit|compat|cli|scaffold)/' },
    },
    {
      name: 'generator-formats-below-model',
      severity: 'error',
      comment:
        'formats reads the schema formats of payloads (Avro, Protobuf): load and model (its types only) sit below it; it knows nothing of emit, compat or the CLI, and no model module but the contract model types.',
      from: { path: '^generator/formats/' },
      to: { path: ['^generator/(emit|compat|cli|scaffold)/', '^generator/model/(?!contract-model[.]ts$)'] },
    },
    {
      name: 'generator-model-below-emit-compat-cli',
      severity: 'error',
      from: { path: '^generator/model/' },
      to: { path: '^generator/(emit|compat|cli|scaffold)/' },
    },
    {
      name: 'generator-emit-and-compat-are-independent',
      severity: 'error',
      comment: 'emit and compat both read the model; neither imports the other or the CLI.',
      from: { path: '^generator/(emit|compat)/' },
      to: { path: '^generator/(cli|scaffold)/' },
    },
    {
      name: 'generator-emit-not-compat',
      severity: 'error',
      from: { path: '^generator/emit/' },
      to: { path: '^generator/compat/' },
    },
    {
      name: 'generator-mock-reads-the-model',
      severity: 'error',
      comment:
        'mock builds values from a contract model: it reads the model and the payload formats (Avro types, as generate builds them); load, emit, compat and the CLI stay out of it.',
      from: { path: '^generator/mock/' },
      to: { path: '^generator/(load|emit|compat|cli|scaffold)/' },
    },
    {
      name: 'generator-compat-not-emit-nor-load',
      severity: 'error',
      comment: "compat compares two models and reads nothing itself: loading the baseline is the CLI's job.",
      from: { path: '^generator/compat/' },
      to: { path: '^generator/(emit|load)/' },
    },
    {
      name: 'only-cli-does-io',
      severity: 'error',
      comment:
        'Files, processes and git belong to the CLI; the generator below it is pure (templates are bundled at build). Compiling .proto files runs the buf CLI, a process: that one module may.',
      from: {
        path: '^generator/',
        pathNot: ['^generator/(cli|bin|deprecated|load|scaffold)/', '^generator/formats/protobuf/compile[.]ts$'],
      },
      to: { dependencyTypes: ['core'], path: '^(fs|node:fs|fs/promises|node:fs/promises|child_process|node:child_process)$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/|[.]generated[.]ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['keiyaku-source', 'import', 'types', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
