/**
 * Subject name strategies, as the Confluent serdes name them: which registry subject the schema
 * of a payload on a topic is registered under.
 */
import { KeiyakuError } from '../core/errors.js';

/**
 * `topic` (TopicNameStrategy, the default): `<topic>-value`, one subject per topic;
 * `record` (RecordNameStrategy): the record's or message's full name, one subject per type
 * whatever the topic; `topic-record` (TopicRecordNameStrategy): `<topic>-<full name>`.
 * A function names the subject itself.
 */
export type SubjectNameStrategy = 'topic' | 'record' | 'topic-record' | ((topic: string, recordName: string) => string);

export const SUBJECT_NAME_STRATEGIES: readonly string[] = Object.freeze(['topic', 'record', 'topic-record']);

/** The subject of a value schema named `recordName` on `topic` under `strategy`. */
export function subjectName(strategy: SubjectNameStrategy, topic: string, recordName: string): string {
  if (typeof strategy === 'function') return strategy(topic, recordName);
  switch (strategy) {
    case 'topic':
      return `${topic}-value`;
    case 'record':
      return recordName;
    case 'topic-record':
      return `${topic}-${recordName}`;
    default:
      throw new KeiyakuError(
        'schema_registry_config',
        `unknown subject name strategy ${JSON.stringify(strategy)}: use one of ${SUBJECT_NAME_STRATEGIES.join(', ')}, or a function`,
      );
  }
}
