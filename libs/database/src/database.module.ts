import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppSettings } from '#config';
import { dataSourceOptions, ensureDatabase } from './data-source.js';
import { ENTITIES } from './entities/index.js';
import { Sql } from './sql.js';

/** The PostgreSQL connection shared by every feature module, and their repositories. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppSettings],
      useFactory: async (settings: AppSettings) => {
        await ensureDatabase(settings.databaseUrl);
        return dataSourceOptions({ url: settings.databaseUrl, poolMax: settings.databasePoolMax });
      },
    }),
    TypeOrmModule.forFeature(ENTITIES),
  ],
  providers: [Sql],
  exports: [TypeOrmModule, Sql],
})
export class DatabaseModule {}
