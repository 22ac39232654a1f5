import { ObservedState, Step, Task, Workflow } from 'groundswell';

export class SyncStep extends Workflow {
  @Step()
  syncMethod(): number {
    return 1;
  }
}

export class NotAWorkflow {
  @Step()
  async work(): Promise<number> {
    return 1;
  }
}

export class TaskReturnsString extends Workflow {
  @Task()
  async spawn(): Promise<string> {
    return 'x';
  }
}

export class TaskSync extends Workflow {
  @Task()
  spawn(): Workflow {
    return new Workflow('x');
  }
}

export class ObservedOnMethod extends Workflow {
  @ObservedState()
  async compute(): Promise<number> {
    return 1;
  }
}

export class StepOnField extends Workflow {
  @Step()
  field = 1;
}

export class StepOnGetter extends Workflow {
  @Step()
  get value(): Promise<number> {
    return Promise.resolve(1);
  }
}

export class StepOnStatic extends Workflow {
  @Step()
  static async make(): Promise<number> {
    return 1;
  }
}

export class StepBadOption extends Workflow {
  @Step({ trackTiming: 'yes' })
  async a(): Promise<number> {
    return 1;
  }
}

export class TaskOnNonWorkflow {
  @Task()
  async spawn(): Promise<Workflow> {
    return new Workflow('x');
  }
}

export class StepReturnsPromiseLike extends Workflow {
  @Step()
  async ok(a: number, b: string): Promise<string> {
    return `${a}${b}`;
  }
}
