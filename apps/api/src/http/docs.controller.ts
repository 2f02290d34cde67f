import { Get, Header, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from './auth.decorator.js';
import { errorHelpPage } from './error-envelope.js';
import { ApiController } from './api-controller.decorator.js';

/** The help page that version 2 errors link to (`help_url`). */
@ApiExcludeController()
@ApiController({ path: 'docs/errors', version: VERSION_NEUTRAL })
export class DocsController {
  private readonly page = errorHelpPage();

  @Get()
  @Public()
  @Header('Content-Type', 'text/html; charset=utf-8')
  errors(): string {
    return this.page;
  }
}
