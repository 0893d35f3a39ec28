import { ScaleReport } from './scaleDatabase';

/** `scale --json`: the report with snake_case keys, as every other JSON VES Lens writes. */
export function scaleReportJson(report: ScaleReport) {
  return {
    source: report.source,
    output: report.output,
    db_id: report.dbId,
    factor: report.factor,
    schema_file: report.schemaFile,
    tables: report.tables.map((table) => ({
      name: table.name,
      rows_before: table.rowsBefore,
      rows_after: table.rowsAfter,
      key_columns: table.keyColumns,
    })),
    domains: report.domains,
    notes: report.notes,
    seconds: report.seconds,
    output_bytes: report.outputBytes,
  };
}
